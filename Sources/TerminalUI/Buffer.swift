/// An in-memory screen: `width`×`height` cells that widgets draw into.
///
/// Each frame is rendered whole into a fresh buffer, or over a copy of a base that holds
/// what did not change (`markAsBase()`); a `Terminal` then writes only the cells that
/// differ from the previous frame (see `diff(from:)`). Text always goes through
/// `set(string:at:style:clip:)`, which turns control characters, ESC, DEL and bidirectional
/// overrides into visible escapes, so nothing drawn can reach the terminal as a command.
///
/// ```swift
/// var buffer = Buffer(width: 10, height: 1)
/// buffer.set(string: "hi \u{1B}[2J", at: Position(x: 0, y: 0))
/// buffer.lines   // ["hi \\e[2J  "]
/// ```
public struct Buffer: Hashable, Sendable {
    public let width: Int
    public let height: Int
    /// The cells row by row: the cell at `x`, `y` is at `y * width + x`. Every write goes
    /// through `put`, `fill`, `setStyle` or `replace`, which note the rows they change in
    /// ``rowsChanged``.
    private(set) var cells: [Cell]
    /// The rows written since this buffer, or the buffer it was copied from, was marked as a
    /// base (``markAsBase()``); nil until then. Not part of the buffer's value.
    private(set) var rowsChanged: RowsChanged?

    /// A buffer of blank cells.
    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: .blank, count: self.width * self.height)
    }

    public init(size: Size) {
        self.init(width: size.width, height: size.height)
    }

    /// Buffers are equal when their sizes and cells are: which rows were written since a
    /// base is how they were made, not what they show.
    public static func == (lhs: Buffer, rhs: Buffer) -> Bool {
        lhs.width == rhs.width && lhs.height == rhs.height && lhs.cells == rhs.cells
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(width)
        hasher.combine(height)
        hasher.combine(cells)
    }

    /// Marks this buffer as a base: frames drawn over copies of it note the rows they
    /// write, and `diff(from:)` between two such frames compares only those rows. An app
    /// that keeps the part of its screen that did not change (the Inspector's panes while
    /// only an overlay changes) draws each frame over a copy of that part.
    ///
    /// Serves `input.type.char`: a typed character changes one or two rows of 60, and
    /// comparing all 12,000 cells of a 200x60 frame was most of its frame in a debug build.
    package mutating func markAsBase() {
        rowsChanged = RowsChanged(base: RowsChanged.Base(), rows: Array(repeating: false, count: height))
    }

    /// The whole buffer as a rectangle at 0, 0.
    public var area: Rect { Rect(x: 0, y: 0, width: width, height: height) }

    /// The cell at `x`, `y`, which must be inside the buffer.
    public subscript(x: Int, y: Int) -> Cell {
        precondition(area.contains(Position(x: x, y: y)), "cell \(x),\(y) is outside the \(width)x\(height) buffer")
        return cells[y * width + x]
    }

    /// Each row as text, continuation cells left out, so a row with a wide character is
    /// one `Character` shorter than `width` but exactly `width` columns wide.
    public var lines: [String] {
        (0..<height).map { y in
            cells[(y * width)..<(y * width + width)].reduce(into: "") { $0 += $1.symbol }
        }
    }

    /// Draws `string` on one row starting at `position`, clipped to the buffer and to `clip`.
    ///
    /// Unsafe characters become visible escapes (`\e`, `\x07`, `\u{202E}`); wide characters
    /// take two cells, and one that would be cut by the clip's edge is not drawn.
    /// - Returns: the column after the last one the text reached (drawn or clipped), so
    ///   consecutive calls can continue a line.
    @discardableResult
    public mutating func set(string: String, at position: Position, style: Style = .plain, clip: Rect? = nil) -> Int {
        let bounds = clip.map { area.intersection($0) } ?? area
        var column = position.x
        if TextWidth.isPrintableASCII(string) {
            // One cell per byte, with no glyph list built.
            guard position.y >= bounds.y, position.y < bounds.maxY else { return column + string.utf8.count }
            for byte in string.utf8 {
                defer { column += 1 }
                guard column >= bounds.x, column < bounds.maxX else { continue }
                put(TextWidth.asciiSymbols[Int(byte) - 0x20], width: 1, x: column, y: position.y, style: style)
            }
            return column
        }
        for glyph in TextWidth.glyphs(of: string) {
            defer { column += glyph.width }
            guard position.y >= bounds.y, position.y < bounds.maxY else { continue }
            guard column >= bounds.x, column + glyph.width <= bounds.maxX else { continue }
            put(String(glyph.character), width: glyph.width, x: column, y: position.y, style: style)
        }
        return column
    }

    /// Draws the spans of `line` one after another, each in its own style.
    /// - Returns: the column after the last span.
    @discardableResult
    public mutating func set(line: Line, at position: Position, clip: Rect? = nil) -> Int {
        var column = position.x
        for span in line.spans {
            column = set(string: span.text, at: Position(x: column, y: position.y), style: span.style, clip: clip)
        }
        return column
    }

    /// Lays `style` over every cell in `area` (see `Style.patched(with:)`), keeping the text.
    public mutating func setStyle(_ style: Style, in area: Rect) {
        let target = self.area.intersection(area)
        for y in target.y..<target.maxY {
            rowsChanged?.note(y)
            for x in target.x..<target.maxX {
                cells[y * width + x].style = cells[y * width + x].style.patched(with: style)
            }
        }
    }

    /// Replaces every cell in `area` with `symbol` in `style`: blanks by default, which is
    /// how an overlay clears what is under it. A symbol that is not one column wide or not
    /// safe to print is drawn as a space.
    public mutating func fill(_ area: Rect, with symbol: Character = " ", style: Style = .plain) {
        let target = self.area.intersection(area)
        guard !target.isEmpty else { return }
        let drawn = TextWidth.oneColumnSymbol(symbol) ?? " "
        let cell = Cell(symbol: drawn, style: style)
        for y in target.y..<target.maxY {
            // What `put` on each cell in turn does: a wide character cut at either end of
            // the row loses its other half; every cell in between is replaced anyway.
            rowsChanged?.note(y)
            let first = y * width + target.x, end = y * width + target.maxX
            if cells[first].isContinuation, target.x > 0 { cells[first - 1] = Cell(symbol: " ", style: cells[first - 1].style) }
            if target.maxX < width, cells[end].isContinuation { cells[end] = Cell(symbol: " ", style: cells[end].style) }
            for index in first..<end { cells[index] = cell }
        }
    }

    /// Replaces one cell as it is, with no regard for wide characters around it: for
    /// whole-frame transformations such as ``displayed(in:)``.
    mutating func replace(x: Int, y: Int, with cell: Cell) {
        rowsChanged?.note(y)
        cells[y * width + x] = cell
    }

    /// Writes one glyph, first blanking any half of a wide character it would split; this
    /// is also what a terminal does, which keeps `diff(from:)` exact.
    mutating func put(_ symbol: String, width glyphWidth: Int, x: Int, y: Int, style: Style) {
        rowsChanged?.note(y)
        let index = y * width + x
        if cells[index].isContinuation, x > 0 {
            cells[index - 1] = Cell(symbol: " ", style: cells[index - 1].style)
        }
        let last = x + glyphWidth - 1
        if last + 1 < width, cells[index + glyphWidth].isContinuation {
            cells[index + glyphWidth] = Cell(symbol: " ", style: cells[index + glyphWidth].style)
        }
        cells[index] = Cell(symbol: symbol, style: style)
        if glyphWidth == 2 {
            cells[index + 1] = Cell(symbol: "", style: style)
        }
    }
}
