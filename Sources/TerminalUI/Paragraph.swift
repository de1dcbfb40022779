/// Lines of styled text, cut at the right edge with `…` or wrapped, scrolled by rows.
///
/// Wrapping breaks a row at its last space, else after the last `/ , ; & = ? -` of a word
/// wider than the row (`application/` then `json`), else mid-word; rows after a line's first
/// start at its ``Line/hangingIndent``.
///
/// ```swift
/// let detail = Paragraph(Line.lines(of: bodyPreview), wrap: true, scroll: state.detailScroll)
/// detail.render(in: area, into: &buffer)
/// let lastScroll = max(0, detail.rowCount(width: area.width) - area.height)
/// ```
public struct Paragraph: Widget, Hashable, Sendable {
    public var lines: [Line]
    /// Wrap long lines instead of cutting them at the right edge with `…`.
    public var wrap: Bool
    /// Rows to skip at the top, counted after wrapping.
    public var scroll: Int

    public init(_ lines: [Line], wrap: Bool = false, scroll: Int = 0) {
        self.lines = lines
        self.wrap = wrap
        self.scroll = scroll
    }

    /// How many rows the paragraph takes at `width`, so an app can bound its scroll offset.
    public func rowCount(width: Int) -> Int {
        width > 0 ? rows(width: width).count : 0
    }

    public func render(in area: Rect, into buffer: inout Buffer) {
        guard !area.isEmpty else { return }
        for (row, glyphs) in rows(width: area.width).dropFirst(max(0, scroll)).prefix(area.height).enumerated() {
            var x = area.x
            for glyph in glyphs {
                x = buffer.set(string: String(glyph.character), at: Position(x: x, y: area.y + row), style: glyph.style, clip: area)
            }
        }
    }

    private struct Glyph {
        var character: Character
        var width: Int
        var style: Style
        var isSpace: Bool { character == " " }
    }

    private func rows(width: Int) -> [[Glyph]] {
        lines.flatMap { line -> [[Glyph]] in
            let shown = wrap ? line : line.cut(to: width)
            let glyphs = shown.spans.flatMap { span in
                TextWidth.glyphs(of: span.text).map { Glyph(character: $0.character, width: $0.width, style: span.style) }
            }
            return wrap ? wrapped(glyphs, width: width, indent: line.hangingIndent) : [glyphs]
        }
    }

    /// Where a word too wide for its row may break: after one of these.
    private static let tokenEnds: Set<Character> = ["/", ",", ";", "&", "=", "?", "-"]

    /// Greedy wrap: a row breaks at its last space (which is dropped), else after the last
    /// token end of a word wider than the row, else mid-word. Rows after the first start
    /// `indent` columns in, when that leaves room for text.
    private func wrapped(_ glyphs: [Glyph], width: Int, indent: Int) -> [[Glyph]] {
        let indent = indent < width / 2 ? max(0, indent) : 0
        var rows: [[Glyph]] = []
        var row: [Glyph] = []
        // The row's width, kept as glyphs go in: summing the row again for each glyph took
        // time quadratic in the row's length.
        var rowWidth = 0
        for glyph in glyphs {
            row.append(glyph)
            rowWidth += glyph.width
            // A row that no longer fits is cut where a break fits; what is left may still be
            // wider than the next row, which is narrower by the indent.
            while rowWidth > (rows.isEmpty ? width : width - indent), row.count > 1 {
                let (head, rest) = Paragraph.split(row, room: rows.isEmpty ? width : width - indent)
                rows.append(head)
                row = rest
                rowWidth = Paragraph.width(of: row)
            }
        }
        rows.append(row)
        let pad = Array(repeating: Glyph(character: " ", width: 1, style: .plain), count: indent)
        return rows.enumerated().map { $0.offset == 0 || indent == 0 ? $0.element : pad + $0.element }
    }

    private static func width(of glyphs: some Collection<Glyph>) -> Int { glyphs.reduce(0) { $0 + $1.width } }

    /// `row` cut in two where the head fits `room`: at the last space that allows it (the
    /// space dropped), else after the last token end, else after as many glyphs as fit.
    private static func split(_ row: [Glyph], room: Int) -> (head: [Glyph], rest: [Glyph]) {
        if let space = row.indices.last(where: { $0 > 0 && row[$0].isSpace && width(of: row[..<$0]) <= room }) {
            return (Array(row[..<space]), Array(row[(space + 1)...]))
        }
        if let token = row.indices.last(where: { $0 < row.count - 1 && tokenEnds.contains(row[$0].character) && width(of: row[...$0]) <= room }) {
            return (Array(row[...token]), Array(row[(token + 1)...]))
        }
        var count = 0
        while count < row.count - 1, width(of: row[...count]) <= room { count += 1 }
        return (Array(row[..<max(1, count)]), Array(row[max(1, count)...]))
    }
}
