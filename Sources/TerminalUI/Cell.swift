/// One column of one row of a `Buffer`: a grapheme and the style it is drawn with.
///
/// A character two columns wide (CJK, most emoji) occupies two cells: the first holds the
/// grapheme and the second is a *continuation* cell with an empty symbol, which a terminal
/// backend never writes because the wide character already covers it.
public struct Cell: Hashable, Sendable {
    /// The grapheme shown in this column: a single safe, printable character, a space for a
    /// blank cell, or empty for the second half of a wide character.
    public internal(set) var symbol: String
    public internal(set) var style: Style {
        didSet { styleCode = style.code }
    }
    /// ``style`` as one number, equal exactly when the styles are: what `Buffer.diff`
    /// compares. Comparing the styles field by field, through `Equatable`, was a third of a
    /// typed character's frame in the debug build (`input.type.char`).
    private(set) var styleCode: UInt32

    init(symbol: String, style: Style) {
        self.symbol = symbol
        self.style = style
        styleCode = style.code
    }

    /// A space in the terminal's own colours.
    public static let blank = Cell(symbol: " ", style: .plain)

    /// Whether this cell is the second column of the wide character to its left.
    public var isContinuation: Bool { symbol.isEmpty }
}
