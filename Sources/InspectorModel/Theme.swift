public import TerminalUI

/// The inspector's colour themes (`--theme`, `"theme"` in the config file). Status is never
/// told by colour alone: every state has its symbol (✓ ✕ ⏸ ↻ ⧗, `+ ~ -` in header diffs,
/// ● for a breakpoint), and the colours only repeat it.
public enum Theme: String, Sendable, Hashable, CaseIterable {
    case dark, light
    case highContrast = "high-contrast"

    /// The palette the terminal draws the theme with.
    public var palette: Palette {
        switch self {
        case .dark: .terminal
        case .light: .light
        case .highContrast: .highContrast
        }
    }

    /// The theme that suits the terminal, from `COLORFGBG` (`"15;0"`: light text on a
    /// dark background; its last field is the background's colour number): light for a
    /// light background (7, or 9–15), dark for anything else or when it is not set.
    public static func following(colorFGBG: String?) -> Theme {
        guard let field = colorFGBG?.split(separator: ";").last, let background = Int(field) else { return .dark }
        return background == 7 || (9...15).contains(background) ? .light : .dark
    }
}
