/// A key press, decoded from the terminal (see `KeyDecoder`).
///
/// Printable input, including Space and non-ASCII characters, is `.char`; Ctrl with a
/// letter is `.ctrl` with the lowercase letter (Ctrl-H, Ctrl-I, Ctrl-J/M and Ctrl-[ arrive
/// as `.backspace`, `.tab`, `.enter` and `.escape`, because terminals send the same bytes).
/// `.resize` means the terminal changed size: read `terminal.size` and redraw. `.mouse` is a
/// click, release, drag or wheel turn, when the terminal reports the mouse.
public enum Key: Hashable, Sendable {
    case char(Character)
    case enter, escape, tab, backTab
    case up, down, left, right
    case pageUp, pageDown, home, end
    case backspace, delete
    case ctrl(Character)
    case function(Int)
    case resize
    case mouse(MouseEvent)
    case unknown

    /// A short ASCII name for help screens and key tables: `q`, `Space`, `Enter`, `Esc`,
    /// `Shift-Tab`, `Up`, `PgDn`, `Ctrl-C`, `F5`.
    public var name: String {
        switch self {
        case .char(" "): "Space"
        case .char(let character): String(character)
        case .enter: "Enter"
        case .escape: "Esc"
        case .tab: "Tab"
        case .backTab: "Shift-Tab"
        case .up: "Up"
        case .down: "Down"
        case .left: "Left"
        case .right: "Right"
        case .pageUp: "PgUp"
        case .pageDown: "PgDn"
        case .home: "Home"
        case .end: "End"
        case .backspace: "Backspace"
        case .delete: "Delete"
        case .ctrl(let character): "Ctrl-" + character.uppercased()
        case .function(let number): "F\(number)"
        case .resize: "Resize"
        case .mouse: "Mouse"
        case .unknown: "Unknown"
        }
    }

    /// The key a person names in a config file: a single character (`s`, `?`), or a name as
    /// ``name`` writes it, in any case (`space`, `Enter`, `esc`, `shift-tab`, `pgdn`,
    /// `ctrl-b`, `F5`). Nil for anything else.
    public init?(name: String) {
        if name.count == 1, let character = name.first {
            guard let key = Key.named(character) else { return nil }
            self = key
            return
        }
        let lower = name.lowercased()
        if lower.hasPrefix("ctrl-"), lower.count == 6, let letter = lower.last, letter.isASCII, letter.isLetter {
            self = .ctrl(letter)
            return
        }
        if lower.hasPrefix("f"), let number = Int(lower.dropFirst()), (1...63).contains(number) {
            self = .function(number)
            return
        }
        let named: [String: Key] = [
            "space": .char(" "), "enter": .enter, "return": .enter, "esc": .escape, "escape": .escape,
            "tab": .tab, "shift-tab": .backTab, "backtab": .backTab, "up": .up, "down": .down,
            "left": .left, "right": .right, "pgup": .pageUp, "pageup": .pageUp, "pgdn": .pageDown,
            "pagedown": .pageDown, "home": .home, "end": .end, "backspace": .backspace, "delete": .delete,
        ]
        guard let key = named[lower] else { return nil }
        self = key
    }

    /// A printable character as a key; control characters are not keys by that name.
    private static func named(_ character: Character) -> Key? {
        guard let scalar = character.unicodeScalars.first, character.unicodeScalars.count == 1,
            scalar.value >= 0x20, scalar.value != 0x7F, !(0x80...0x9F).contains(scalar.value)
        else { return nil }
        return .char(character)
    }
}
