/// How a terminal shows a finished frame: in a palette, and in plain ASCII when the font
/// or the terminal lacks box drawing, arrows and symbols (`--ascii`, or a locale that is
/// not UTF-8). Both backends pass each frame through ``Buffer/displayed(in:)`` before
/// diffing it, so what a test backend records is what the real terminal shows.
public struct Display: Hashable, Sendable {
    public var palette: Palette
    public var asciiOnly: Bool

    public init(palette: Palette = .terminal, asciiOnly: Bool = false) {
        self.palette = palette
        self.asciiOnly = asciiOnly
    }

    /// The terminal's colours, any characters.
    public static let plain = Display()

    /// One-column ASCII stand-ins for the symbols apps draw; anything else outside ASCII
    /// becomes `?` (and a wide character `?` and a space).
    public static let asciiGlyphs: [Character: Character] = [
        "─": "-", "│": "|", "┌": "+", "┐": "+", "└": "+", "┘": "+", "├": "+", "┤": "+", "┬": "+", "┴": "+", "┼": "+",
        "═": "=", "║": "|", "╌": "-", "┄": "-", "▏": "|", "▕": "|", "▇": "#", "█": "#", "▓": "%", "▒": ":", "░": ".",
        "▁": "_", "▔": "-", "↓": "v", "↑": "^", "→": ">", "←": "<", "↔": "-", "⇒": ">", "›": ">", "‹": "<", "»": ">", "«": "<",
        "▶": ">", "◀": "<", "▸": ">", "▾": "v", "✓": "+", "✔": "+", "✕": "x", "✗": "x", "×": "x", "⏸": "=", "↻": "R",
        "⧗": "w", "…": ".", "·": ".", "•": "*", "●": "*", "○": "o", "◆": "*", "⚡": "!", "✎": "e", "⚠": "!", "—": "-",
        "–": "-", "≠": "#", "≈": "~", "≤": "<", "≥": ">", "°": "o", "µ": "u", "“": "\"", "”": "\"", "‘": "'", "’": "'",
    ]

    /// `symbol` in plain ASCII, one column wide.
    public static func ascii(_ symbol: String) -> String {
        guard let character = symbol.first, !symbol.unicodeScalars.allSatisfy(\.isASCII) else { return symbol }
        return String(asciiGlyphs[character] ?? "?")
    }
}

extension Buffer {
    /// This frame as `display` shows it: each style through the palette, and with
    /// `asciiOnly` each symbol outside ASCII replaced (a wide character's second column
    /// becomes a space), so no byte of the frame is 0x80 or above.
    public func displayed(in display: Display) -> Buffer {
        guard display != .plain else { return self }
        var result = self
        for y in 0..<height {
            for x in 0..<width {
                let cell = self[x, y]
                let style = display.palette.isIdentity ? cell.style : display.palette.apply(cell.style)
                if display.asciiOnly, cell.isContinuation || !cell.symbol.unicodeScalars.allSatisfy(\.isASCII) {
                    result.replace(x: x, y: y, with: Cell(symbol: cell.isContinuation ? " " : Display.ascii(cell.symbol), style: style))
                } else if style != cell.style {
                    result.replace(x: x, y: y, with: Cell(symbol: cell.symbol, style: style))
                }
            }
        }
        return result
    }
}
