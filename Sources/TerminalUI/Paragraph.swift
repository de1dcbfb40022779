/// Lines of styled text, clipped at the right edge or wrapped at spaces, scrolled by rows.
///
/// ```swift
/// let detail = Paragraph(Line.lines(of: bodyPreview), wrap: true, scroll: state.detailScroll)
/// detail.render(in: area, into: &buffer)
/// let lastScroll = max(0, detail.rowCount(width: area.width) - area.height)
/// ```
public struct Paragraph: Widget, Hashable, Sendable {
    public var lines: [Line]
    /// Wrap long lines at the last space that fits (or mid-word when a word is wider than
    /// the area) instead of cutting them at the right edge.
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
            let glyphs = line.spans.flatMap { span in
                TextWidth.glyphs(of: span.text).map { Glyph(character: $0.character, width: $0.width, style: span.style) }
            }
            return wrap ? wrapped(glyphs, width: width) : [glyphs]
        }
    }

    /// Greedy word wrap: a row breaks at its last space (which is dropped), or mid-word
    /// when one word is wider than the row.
    private func wrapped(_ glyphs: [Glyph], width: Int) -> [[Glyph]] {
        var rows: [[Glyph]] = []
        var row: [Glyph] = []
        var rowWidth = 0
        for glyph in glyphs {
            if !row.isEmpty, rowWidth + glyph.width > width {
                if glyph.isSpace {
                    rows.append(row)
                    row = []
                    rowWidth = 0
                    continue
                }
                if let space = row.lastIndex(where: \.isSpace), space > 0 {
                    rows.append(Array(row[..<space]))
                    row = Array(row[(space + 1)...])
                } else {
                    rows.append(row)
                    row = []
                }
                rowWidth = row.reduce(0) { $0 + $1.width }
                if !row.isEmpty, rowWidth + glyph.width > width {
                    rows.append(row)
                    row = []
                    rowWidth = 0
                }
            }
            row.append(glyph)
            rowWidth += glyph.width
        }
        rows.append(row)
        return rows
    }
}
