/// A single-line editable text field with a cursor, for forms such as a header editor.
///
/// It only holds and edits text; deciding whether the text is valid is the app's job.
/// Feed it keys with `handle(_:)`; the cursor is drawn as a highlighted cell (the terminal
/// cursor stays hidden) and the view scrolls sideways to keep it visible, with `…` where
/// text goes on out of view. Control characters in the text are shown as visible escapes.
///
/// ```swift
/// var field = TextInput(text: "Authorization")
/// field.handle(.home)
/// field.handle(.char("X"))
/// field.text   // "XAuthorization"
/// ```
public struct TextInput: Widget, Hashable, Sendable {
    private var characters: [Character]
    /// The cursor, as a count of characters before it (0...text.count).
    public private(set) var cursor: Int
    /// Whether the cursor is drawn.
    public var isFocused: Bool
    public var style: Style
    public var cursorStyle: Style

    /// A field holding `text` with the cursor at its end.
    public init(text: String = "", isFocused: Bool = true, style: Style = .plain, cursorStyle: Style = .reverse) {
        characters = Array(text)
        cursor = characters.count
        self.isFocused = isFocused
        self.style = style
        self.cursorStyle = cursorStyle
    }

    public var text: String {
        get { String(characters) }
        set {
            characters = Array(newValue)
            cursor = characters.count
        }
    }

    /// The most characters a field holds: typing past it does nothing, and a paste is cut there.
    public static let maximumLength = 65_536

    /// Inserts `character` before the cursor; false when the field is full.
    @discardableResult
    public mutating func insert(_ character: Character) -> Bool {
        guard characters.count < Self.maximumLength else { return false }
        characters.insert(character, at: cursor)
        cursor += 1
        return true
    }

    /// Inserts `text` before the cursor in one step, as much of it as fits; false when some
    /// of it did not fit. A paste goes in this way: one insertion, not one per character.
    @discardableResult
    public mutating func insert(contentsOf text: String) -> Bool {
        let room = Self.maximumLength - characters.count
        let taken = text.prefix(room)
        characters.insert(contentsOf: taken, at: cursor)
        let count = characters.count - (Self.maximumLength - room)
        cursor += count
        return taken.endIndex == text.endIndex
    }

    /// Whether the field is empty, without building its text.
    public var isEmpty: Bool { characters.isEmpty }

    /// Removes the character before the cursor (Backspace).
    public mutating func deleteBackward() {
        guard cursor > 0 else { return }
        cursor -= 1
        characters.remove(at: cursor)
    }

    /// Removes the character under the cursor (Delete).
    public mutating func deleteForward() {
        guard cursor < characters.count else { return }
        characters.remove(at: cursor)
    }

    public mutating func moveLeft() { cursor = max(0, cursor - 1) }
    public mutating func moveRight() { cursor = min(characters.count, cursor + 1) }
    public mutating func moveToStart() { cursor = 0 }
    public mutating func moveToEnd() { cursor = characters.count }

    /// Applies an editing key: a character, Backspace, Delete, Left, Right, Home, End.
    /// - Returns: whether the key was an editing key; the app handles the others (Enter, Esc, Tab).
    @discardableResult
    public mutating func handle(_ key: Key) -> Bool {
        switch key {
        case .char(let character): insert(character)
        case .backspace: deleteBackward()
        case .delete: deleteForward()
        case .left: moveLeft()
        case .right: moveRight()
        case .home: moveToStart()
        case .end: moveToEnd()
        default: return false
        }
        return true
    }

    /// Draws the characters in view only: the view scrolls to keep the cursor in its last
    /// column at most, so it starts no more than `area.width` columns before the cursor and a
    /// long field costs what a short one does.
    public func render(in area: Rect, into buffer: inout Buffer) {
        guard !area.isEmpty else { return }
        let row = Rect(x: area.x, y: area.y, width: area.width, height: 1)
        var first = cursor
        var beforeCursor = 0
        while first > 0 {
            let width = TextWidth.of(String(characters[first - 1]))
            guard beforeCursor + width <= area.width - 1 else { break }
            beforeCursor += width
            first -= 1
        }
        let start = first == 0 ? 0 : area.width - 1 - beforeCursor
        var column = start
        var index = first
        while index < characters.count, column < area.width {
            let text = String(characters[index])
            buffer.set(string: text, at: Position(x: area.x + column, y: area.y), style: style, clip: row)
            column += TextWidth.of(text)
            index += 1
        }
        // Text scrolled out of view on either side is marked with `…`, never cut silently;
        // the cursor's own cell keeps its character.
        let cursorWidth = cursor < characters.count ? max(1, TextWidth.of(String(characters[cursor]))) : 1
        let cursorCells = Rect(x: area.x + start + beforeCursor, y: area.y, width: cursorWidth, height: 1)
        let marker = style.patched(with: .dim)
        if first > 0, area.width > 1 { buffer.set(string: "…", at: area.origin, style: marker, clip: row) }
        if index < characters.count || column > area.width, area.width > 1, !cursorCells.contains(Position(x: area.maxX - 1, y: area.y)) {
            buffer.set(string: "…", at: Position(x: area.maxX - 1, y: area.y), style: marker, clip: row)
        }
        if isFocused {
            buffer.setStyle(cursorStyle, in: cursorCells.intersection(row))
        }
    }
}
