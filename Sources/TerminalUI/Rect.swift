/// A rectangle of cells. Width and height are never negative, so every helper here is safe
/// to chain on a terminal of any size, down to 0×0.
///
/// ```swift
/// let screen = Rect(x: 0, y: 0, width: 80, height: 24)
/// let (body, status) = screen.splitBottom(1)
/// let content = body.inset(by: 1)        // inside a border
/// ```
public struct Rect: Hashable, Sendable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    /// A rectangle; a negative width or height becomes 0.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = max(0, width)
        self.height = max(0, height)
    }

    /// A rectangle of `size` at the top-left corner.
    public init(size: Size) {
        self.init(x: 0, y: 0, width: size.width, height: size.height)
    }

    public static let zero = Rect(x: 0, y: 0, width: 0, height: 0)

    /// The column just right of the rectangle.
    public var maxX: Int { x + width }
    /// The row just below the rectangle.
    public var maxY: Int { y + height }
    public var isEmpty: Bool { width == 0 || height == 0 }
    public var origin: Position { Position(x: x, y: y) }
    public var size: Size { Size(width: width, height: height) }
    public var description: String { "\(width)x\(height)@\(x),\(y)" }

    public func contains(_ position: Position) -> Bool {
        position.x >= x && position.x < maxX && position.y >= y && position.y < maxY
    }

    /// The part of this rectangle that is also in `other`; empty (at the clamped corner)
    /// when they do not overlap.
    public func intersection(_ other: Rect) -> Rect {
        let left = max(x, other.x)
        let top = max(y, other.y)
        return Rect(x: left, y: top, width: min(maxX, other.maxX) - left, height: min(maxY, other.maxY) - top)
    }

    /// The rectangle shrunk by `amount` cells on every side.
    public func inset(by amount: Int) -> Rect {
        inset(horizontal: amount, vertical: amount)
    }

    /// The rectangle shrunk by `horizontal` cells left and right and `vertical` cells top and
    /// bottom; it becomes empty rather than turning negative.
    public func inset(horizontal: Int, vertical: Int) -> Rect {
        let dx = max(0, horizontal)
        let dy = max(0, vertical)
        return Rect(x: x + min(dx, width), y: y + min(dy, height), width: width - 2 * dx, height: height - 2 * dy)
    }

    /// The top `rows` rows (at most the whole rectangle) and what is left below them.
    public func splitTop(_ rows: Int) -> (top: Rect, rest: Rect) {
        let taken = min(max(0, rows), height)
        return (Rect(x: x, y: y, width: width, height: taken),
                Rect(x: x, y: y + taken, width: width, height: height - taken))
    }

    /// The bottom `rows` rows (at most the whole rectangle) and what is left above them.
    public func splitBottom(_ rows: Int) -> (rest: Rect, bottom: Rect) {
        let taken = min(max(0, rows), height)
        return (Rect(x: x, y: y, width: width, height: height - taken),
                Rect(x: x, y: maxY - taken, width: width, height: taken))
    }

    /// The left `columns` columns (at most the whole rectangle) and what is left to their right.
    public func splitLeft(_ columns: Int) -> (left: Rect, rest: Rect) {
        let taken = min(max(0, columns), width)
        return (Rect(x: x, y: y, width: taken, height: height),
                Rect(x: x + taken, y: y, width: width - taken, height: height))
    }

    /// The right `columns` columns (at most the whole rectangle) and what is left to their left.
    public func splitRight(_ columns: Int) -> (rest: Rect, right: Rect) {
        let taken = min(max(0, columns), width)
        return (Rect(x: x, y: y, width: width - taken, height: height),
                Rect(x: maxX - taken, y: y, width: taken, height: height))
    }

    /// A `width`×`height` rectangle centred in this one, shrunk to fit when this one is smaller.
    public func centered(width: Int, height: Int) -> Rect {
        let w = min(max(0, width), self.width)
        let h = min(max(0, height), self.height)
        return Rect(x: x + (self.width - w) / 2, y: y + (self.height - h) / 2, width: w, height: h)
    }
}
