/// One cell a terminal has to write: its position and what goes there.
public struct CellChange: Hashable, Sendable {
    public var x: Int
    public var y: Int
    public var cell: Cell

    public init(x: Int, y: Int, cell: Cell) {
        self.x = x
        self.y = y
        self.cell = cell
    }
}

extension Buffer {
    /// The cells that differ from `previous`, row by row, left to right: what a terminal
    /// showing `previous` must write to show this buffer. Continuation cells are never
    /// listed (the wide character before them covers them); a buffer of another size
    /// differs everywhere.
    ///
    /// ```swift
    /// var next = previous
    /// next.set(string: "x", at: Position(x: 3, y: 1))
    /// next.diff(from: previous)   // [CellChange(x: 3, y: 1, cell: "x")] if it was not "x"
    /// ```
    public func diff(from previous: Buffer) -> [CellChange] {
        guard previous.width == width, previous.height == height else { return allCells }
        var changes: [CellChange] = []
        // Two frames drawn over copies of one base differ only in rows either wrote since:
        // the other rows are the base's cells in both.
        if let mine = rowsChanged, let theirs = previous.rowsChanged, mine.base === theirs.base {
            for y in 0..<height where mine.rows[y] || theirs.rows[y] {
                appendChanges(from: previous, in: (y * width)..<(y * width + width), to: &changes)
            }
            return changes
        }
        appendChanges(from: previous, in: cells.indices, to: &changes)
        return changes
    }

    /// Appends the cells at `indices` that differ from `previous`'s.
    private func appendChanges(from previous: Buffer, in indices: Range<Int>, to changes: inout [CellChange]) {
        // The cells are read straight from the two arrays, without the bounds checks of
        // `subscript(x:y:)`: a frame compares every cell of the screen.
        let cells = self.cells, old = previous.cells
        for index in indices {
            let cell = cells[index], was = old[index]
            if !(cell.styleCode == was.styleCode && cell.symbol == was.symbol), !cell.isContinuation {
                changes.append(CellChange(x: index % width, y: index / width, cell: cell))
            }
        }
    }

    /// Every cell to write on a terminal whose content is unknown (a first frame, a resize).
    public var allCells: [CellChange] {
        var changes: [CellChange] = []
        changes.reserveCapacity(width * height)
        for y in 0..<height {
            for x in 0..<width where !self[x, y].isContinuation {
                changes.append(CellChange(x: x, y: y, cell: self[x, y]))
            }
        }
        return changes
    }
}

/// The rows of a buffer written since it, or the buffer it was copied from, was marked as a
/// base (``Buffer/markAsBase()``).
struct RowsChanged: Sendable {
    /// Which marking this is: buffers sharing it were copied from one base.
    final class Base: Sendable {}

    let base: Base
    /// Whether each row was written, by `y`.
    private(set) var rows: [Bool]

    init(base: Base, rows: [Bool]) {
        self.base = base
        self.rows = rows
    }

    mutating func note(_ y: Int) {
        rows[y] = true
    }
}
