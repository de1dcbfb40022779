/// A key press, decoded from the terminal (see `KeyDecoder`).
///
/// Printable input, including Space and non-ASCII characters, is `.char`; Ctrl with a
/// letter is `.ctrl` with the lowercase letter (Ctrl-H, Ctrl-I, Ctrl-J/M and Ctrl-[ arrive
/// as `.backspace`, `.tab`, `.enter` and `.escape`, because terminals send the same bytes).
/// `.resize` means the terminal changed size: read `terminal.size` and redraw.
public enum Key: Hashable, Sendable {
    case char(Character)
    case enter, escape, tab, backTab
    case up, down, left, right
    case pageUp, pageDown, home, end
    case backspace, delete
    case ctrl(Character)
    case function(Int)
    case resize
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
        case .unknown: "Unknown"
        }
    }
}
