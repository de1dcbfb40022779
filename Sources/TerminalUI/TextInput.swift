/// A single-line editable text field with a cursor, for forms such as a header editor.
///
/// It only holds and edits text; deciding whether the text is valid is the app's job.
/// Feed it keys with `handle(_:)`; the cursor is drawn as a highlighted cell (the terminal
/// cursor stays hidden) and the view scrolls sideways to keep it visible. Control
/// characters in the text are shown as visible escapes.
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

    /// Inserts `character` before the cursor.
    public mutating func insert(_ character: Character) {
        characters.insert(character, at: cursor)
        cursor += 1
    }

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

    public func render(in area: Rect, into buffer: inout Buffer) {
        guard !area.isEmpty else { return }
        let row = Rect(x: area.x, y: area.y, width: area.width, height: 1)
        let columns = characters.map { TextWidth.of(String($0)) }
        let cursorColumn = columns[..<cursor].reduce(0, +)
        let firstColumn = max(0, cursorColumn - (area.width - 1))
        var column = 0
        for (character, width) in zip(characters, columns) {
            defer { column += width }
            guard column >= firstColumn else { continue }
            buffer.set(string: String(character), at: Position(x: area.x + column - firstColumn, y: area.y), style: style, clip: row)
        }
        if isFocused {
            let cursorWidth = cursor < characters.count ? max(1, columns[cursor]) : 1
            let cursorCells = Rect(x: area.x + cursorColumn - firstColumn, y: area.y, width: cursorWidth, height: 1)
            buffer.setStyle(cursorStyle, in: cursorCells.intersection(row))
        }
    }
}
