/// A foreground or background colour of a cell.
///
/// `.default` keeps the terminal's own colour, which is what most cells should use so the
/// screen respects the user's theme. The eight basic colours and their bright variants work
/// everywhere; `.indexed(n)` addresses the xterm 256-colour palette.
///
/// ```swift
/// let warning = Style(foreground: .yellow)
/// let muted = Style(foreground: .indexed(244))
/// ```
public enum Color: Hashable, Sendable {
    case `default`
    case black, red, green, yellow, blue, magenta, cyan, white
    case brightBlack, brightRed, brightGreen, brightYellow, brightBlue, brightMagenta, brightCyan, brightWhite
    case indexed(UInt8)

    /// A number for each colour, distinct for distinct colours and below 512: `.default` 0,
    /// the sixteen named ones 1–16, `.indexed(n)` 17 + n (``Style/code`` packs two).
    package var code: UInt32 {
        switch self {
        case .default: 0
        case .black: 1
        case .red: 2
        case .green: 3
        case .yellow: 4
        case .blue: 5
        case .magenta: 6
        case .cyan: 7
        case .white: 8
        case .brightBlack: 9
        case .brightRed: 10
        case .brightGreen: 11
        case .brightYellow: 12
        case .brightBlue: 13
        case .brightMagenta: 14
        case .brightCyan: 15
        case .brightWhite: 16
        case .indexed(let index): 17 + UInt32(index)
        }
    }

    /// The xterm palette index (0–7 basic, 8–15 bright, the index itself for `.indexed`),
    /// or nil for `.default`.
    public var paletteIndex: Int? {
        switch self {
        case .default: nil
        case .black: 0
        case .red: 1
        case .green: 2
        case .yellow: 3
        case .blue: 4
        case .magenta: 5
        case .cyan: 6
        case .white: 7
        case .brightBlack: 8
        case .brightRed: 9
        case .brightGreen: 10
        case .brightYellow: 11
        case .brightBlue: 12
        case .brightMagenta: 13
        case .brightCyan: 14
        case .brightWhite: 15
        case .indexed(let index): Int(index)
        }
    }
}
