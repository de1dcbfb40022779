import Vocabulary

/// How many terminal columns text takes, the way `Buffer` draws it.
///
/// Unsafe characters (controls, ESC, DEL, bidirectional overrides) are first replaced by
/// their visible escapes from `VisibleEscapes`, so `TextWidth.of("a\u{1B}")` is 3 (`a\e`).
/// East Asian wide characters and emoji take two columns; combining marks and other
/// zero-width characters take none.
///
/// ```swift
/// TextWidth.of("héllo")   // 5
/// TextWidth.of("日本")     // 4
/// ```
public enum TextWidth {
    /// The number of columns `text` occupies once escaped.
    public static func of(_ text: String) -> Int {
        if isPrintableASCII(text) { return text.utf8.count }
        return glyphs(of: text).reduce(0) { $0 + $1.width }
    }

    /// Whether every byte of `text` is printable ASCII, space to `~`. Each byte is then one
    /// grapheme, one column wide, that no escape changes: most of what a screen draws, known
    /// without splitting graphemes or reading the Unicode tables, which is most of the cost
    /// of a frame otherwise (`input.type.char`).
    static func isPrintableASCII(_ text: String) -> Bool {
        // A plain loop: `allSatisfy` with a closure is generic code a debug build does not
        // specialise, and cost more than the bytes it read.
        for byte in text.utf8 where byte < 0x20 || byte >= 0x7F { return false }
        return true
    }

    /// The cell symbol of each printable ASCII byte, by `byte - 0x20`.
    static let asciiSymbols: [String] = (0x20..<0x7F).map { String(Unicode.Scalar(UInt8($0))) }

    /// The cell symbol `character` is drawn as when it is one safe glyph one column wide;
    /// nil for anything else (an escape, a wide or a zero-width character).
    static func oneColumnSymbol(_ character: Character) -> String? {
        let scalars = character.unicodeScalars
        if scalars.count == 1, let scalar = scalars.first, oneColumnRanges.contains(where: { $0.contains(scalar.value) }) {
            return String(character)
        }
        let glyphs = glyphs(of: String(character))
        return glyphs.count == 1 && glyphs[0].width == 1 ? String(glyphs[0].character) : nil
    }

    /// The graphemes drawn for `text`: escaped, with zero-width graphemes left out.
    static func glyphs(of text: String) -> [(character: Character, width: Int)] {
        if isPrintableASCII(text) { return text.utf8.map { (Character(Unicode.Scalar($0)), 1) } }
        // A loop rather than `compactMap`: in a debug build the generic algorithm and its
        // closure cost more than the Unicode look-ups (`input.latency.10k`).
        var glyphs: [(character: Character, width: Int)] = []
        for character in VisibleEscapes.escape(text) {
            let width = columns(of: character)
            if width > 0 { glyphs.append((character, width)) }
        }
        return glyphs
    }

    /// Columns of one safe grapheme: the width of its first scalar, as a terminal's
    /// `wcwidth` would report it.
    static func columns(of character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        return columns(of: first)
    }

    package static func columns(of scalar: Unicode.Scalar) -> Int {
        if oneColumnRanges.contains(where: { $0.contains(scalar.value) }) { return 1 }
        return columnsByTables(of: scalar)
    }

    /// Scalars known to be one column wide: printable ASCII, and the box drawing, block
    /// element and geometric shape blocks that borders, bars and marks are drawn with
    /// (category "other symbol", neither emoji presentation nor East Asian wide). A test
    /// checks each against ``columnsByTables(of:)``.
    package static let oneColumnRanges: [ClosedRange<UInt32>] = [0x20...0x7E, 0x2500...0x25FC]

    /// Columns of one scalar by its Unicode properties.
    package static func columnsByTables(of scalar: Unicode.Scalar) -> Int {
        let properties = scalar.properties
        switch properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return 0
        default: break
        }
        if properties.isEmojiPresentation || isEastAsianWide(scalar.value) { return 2 }
        return 1
    }

    /// East Asian Wide and Fullwidth blocks that are not already emoji-presentation.
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF,
        0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF,
        0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4,
        0x17000...0x18CFF, 0x1B000...0x1B2FF, 0x1F200...0x1F251, 0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]

    private static func isEastAsianWide(_ value: UInt32) -> Bool {
        guard value >= 0x1100 else { return false }
        var low = 0
        var high = wideRanges.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let range = wideRanges[middle]
            if value < range.lowerBound { high = middle - 1 } else if value > range.upperBound { low = middle + 1 } else { return true }
        }
        return false
    }
}
