/// Rows of cells under a header, in columns sized by `Layout` constraints, with a selected
/// row that is always scrolled into view.
///
/// ```swift
/// let table = Table(
///     columns: [.init("hop", width: .length(26)), .init("pre-flight ↓", width: .fill), .init("post-flight ↑", width: .fill)],
///     rows: hops.map { [Line($0.name), Line($0.pre), Line($0.post)] },
///     selected: state.selectedHop
/// )
/// table.render(in: area, into: &buffer)
/// ```
public struct Table: Widget, Hashable, Sendable {
    public struct Column: Hashable, Sendable {
        public var header: String
        public var width: Constraint

        public init(_ header: String, width: Constraint) {
            self.header = header
            self.width = width
        }
    }

    public var columns: [Column]
    /// One line per column; missing cells are left blank, extra cells are not drawn.
    public var rows: [[Line]]
    public var selected: Int?
    /// The first body row shown, as last stored by the app (see `List.offset`).
    public var offset: Int
    public var headerStyle: Style
    public var highlightStyle: Style
    /// Blank columns between neighbouring columns.
    public var columnSpacing: Int

    public init(
        columns: [Column], rows: [[Line]], selected: Int? = nil, offset: Int = 0,
        headerStyle: Style = .bold, highlightStyle: Style = .reverse, columnSpacing: Int = 1
    ) {
        self.columns = columns
        self.rows = rows
        self.selected = selected
        self.offset = offset
        self.headerStyle = headerStyle
        self.highlightStyle = highlightStyle
        self.columnSpacing = columnSpacing
    }

    /// The first body row shown in an area `height` tall (one row goes to the header).
    public func offset(height: Int) -> Int {
        Scrolling.offset(selected: selected, offset: offset, visibleRows: height - 1, itemCount: rows.count)
    }

    /// The horizontal extent of each column in `area`.
    public func columnAreas(in area: Rect) -> [Rect] {
        var constraints: [Constraint] = []
        for (index, column) in columns.enumerated() {
            if index > 0 { constraints.append(.length(columnSpacing)) }
            constraints.append(column.width)
        }
        let segments = Layout.horizontal(constraints).split(area)
        return stride(from: 0, to: segments.count, by: 2).map { segments[$0] }
    }

    public func render(in area: Rect, into buffer: inout Buffer) {
        guard !area.isEmpty else { return }
        let cellAreas = columnAreas(in: Rect(x: area.x, y: area.y, width: area.width, height: 1))
        for (column, cellArea) in zip(columns, cellAreas) {
            buffer.set(string: column.header, at: cellArea.origin, style: headerStyle, clip: cellArea)
        }
        let first = offset(height: area.height)
        for (row, index) in (first..<min(rows.count, first + area.height - 1)).enumerated() {
            let y = area.y + 1 + row
            for (line, cellArea) in zip(rows[index], cellAreas) {
                let clip = Rect(x: cellArea.x, y: y, width: cellArea.width, height: 1)
                buffer.set(line: line, at: clip.origin, clip: clip)
            }
            if index == selected {
                buffer.setStyle(highlightStyle, in: Rect(x: area.x, y: y, width: area.width, height: 1))
            }
        }
    }
}
