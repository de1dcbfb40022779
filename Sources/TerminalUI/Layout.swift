/// How much of a split one segment asks for.
public enum Constraint: Hashable, Sendable {
    /// Exactly `n` cells.
    case length(Int)
    /// `p` percent of the whole (0–100).
    case percentage(Int)
    /// At least `n` cells; grows into spare space when there is no `.fill`.
    case min(Int)
    /// An equal share of whatever the other segments leave.
    case fill
}

/// Splits a rectangle into rows (`vertical`) or columns (`horizontal`) by constraints.
///
/// The solver is deliberately simple and total: every segment gets its length, its
/// percentage (rounded so neighbouring percentages add up exactly) or its minimum; spare
/// space goes to `.fill` segments in equal shares (earlier ones take the remainder), or, if
/// there are none, to `.min` segments. When the constraints ask for more than there is,
/// segments are cut from the last one backwards, so a small terminal keeps the first
/// segments whole. Sizes are never negative and any area, even 0×0, splits without error.
///
/// ```swift
/// let rows = Layout.vertical([.fill, .length(1)]).split(screen)          // body, status line
/// let panes = Layout.horizontal([.percentage(30), .fill]).split(rows[0]) // list, detail
/// ```
public struct Layout: Hashable, Sendable {
    public enum Direction: Hashable, Sendable { case vertical, horizontal }

    public var direction: Direction
    public var constraints: [Constraint]

    public init(_ direction: Direction, _ constraints: [Constraint]) {
        self.direction = direction
        self.constraints = constraints
    }

    /// Segments stacked top to bottom, each as wide as the area.
    public static func vertical(_ constraints: [Constraint]) -> Layout { Layout(.vertical, constraints) }

    /// Segments side by side, left to right, each as tall as the area.
    public static func horizontal(_ constraints: [Constraint]) -> Layout { Layout(.horizontal, constraints) }

    /// One rectangle per constraint, in order, tiling `area` along the direction.
    public func split(_ area: Rect) -> [Rect] {
        let total = direction == .vertical ? area.height : area.width
        var offset = 0
        return Layout.sizes(constraints, total: total).map { size in
            defer { offset += size }
            return direction == .vertical
                ? Rect(x: area.x, y: area.y + offset, width: area.width, height: size)
                : Rect(x: area.x + offset, y: area.y, width: size, height: area.height)
        }
    }

    static func sizes(_ constraints: [Constraint], total: Int) -> [Int] {
        let total = max(0, total)
        var percentSoFar = 0
        var sizes = constraints.map { constraint -> Int in
            switch constraint {
            case .length(let n), .min(let n): return max(0, n)
            case .fill: return 0
            case .percentage(let p):
                let before = total * percentSoFar / 100
                percentSoFar += min(max(0, p), 100)
                return total * percentSoFar / 100 - before
            }
        }
        var overflow = sizes.reduce(0, +) - total
        for index in sizes.indices.reversed() where overflow > 0 {
            let cut = min(sizes[index], overflow)
            sizes[index] -= cut
            overflow -= cut
        }
        let spare = -overflow
        let fills = constraints.indices.filter { constraints[$0] == .fill }
        let growers = fills.isEmpty ? constraints.indices.filter { if case .min = constraints[$0] { true } else { false } } : fills
        for (rank, index) in growers.enumerated() where spare > 0 {
            sizes[index] += spare / growers.count + (rank < spare % growers.count ? 1 : 0)
        }
        return sizes
    }
}
