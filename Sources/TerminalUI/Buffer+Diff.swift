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
        // The cells are read straight from the two arrays, without the bounds checks of
        // `subscript(x:y:)`: a frame compares every cell of the screen.
        let cells = self.cells, old = previous.cells
        for index in cells.indices {
            let cell = cells[index], was = old[index]
            if !(cell.styleCode == was.styleCode && cell.symbol == was.symbol), !cell.isContinuation {
                changes.append(CellChange(x: index % width, y: index / width, cell: cell))
            }
        }
        return changes
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
