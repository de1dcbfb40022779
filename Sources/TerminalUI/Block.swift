/// Which sides of a `Block` have a border.
public struct Borders: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let top = Borders(rawValue: 1 << 0)
    public static let bottom = Borders(rawValue: 1 << 1)
    public static let left = Borders(rawValue: 1 << 2)
    public static let right = Borders(rawValue: 1 << 3)
    public static let all: Borders = [.top, .bottom, .left, .right]
}

/// A border with an optional title set into the top edge: `┌ Requests ──┐`.
///
/// Draw the block, then its content in `inner(area)`:
///
/// ```swift
/// let block = Block(title: "Requests", symbols: terminal.symbols)
/// block.render(in: area, into: &buffer)
/// requestList.render(in: block.inner(area), into: &buffer)
/// ```
public struct Block: Widget, Hashable, Sendable {
    public var title: String?
    public var borders: Borders
    public var symbols: Symbols
    public var borderStyle: Style
    public var titleStyle: Style

    public init(
        title: String? = nil, borders: Borders = .all, symbols: Symbols = .unicode,
        borderStyle: Style = .plain, titleStyle: Style = .plain
    ) {
        self.title = title
        self.borders = borders
        self.symbols = symbols
        self.borderStyle = borderStyle
        self.titleStyle = titleStyle
    }

    /// The part of `area` inside the borders.
    public func inner(_ area: Rect) -> Rect {
        let left = borders.contains(.left) ? 1 : 0
        let top = borders.contains(.top) ? 1 : 0
        return Rect(
            x: area.x + left, y: area.y + top,
            width: area.width - left - (borders.contains(.right) ? 1 : 0),
            height: area.height - top - (borders.contains(.bottom) ? 1 : 0)
        )
    }

    public func render(in area: Rect, into buffer: inout Buffer) {
        guard !area.isEmpty else { return }
        let hasLeft = borders.contains(.left)
        let hasRight = borders.contains(.right)
        if borders.contains(.top) {
            edge(at: area.y, of: area, left: hasLeft ? symbols.topLeft : nil, right: hasRight ? symbols.topRight : nil, into: &buffer)
        }
        if borders.contains(.bottom), area.height > 1 || !borders.contains(.top) {
            edge(at: area.maxY - 1, of: area, left: hasLeft ? symbols.bottomLeft : nil, right: hasRight ? symbols.bottomRight : nil, into: &buffer)
        }
        let firstSideRow = area.y + (borders.contains(.top) ? 1 : 0)
        let endSideRow = area.maxY - (borders.contains(.bottom) ? 1 : 0)
        // Each side is one fill: a fill changes only the rows it covers, so this draws what
        // filling row by row, left side then right, draws.
        let sides = Rect(x: area.x, y: firstSideRow, width: area.width, height: endSideRow - firstSideRow)
        if hasLeft { buffer.fill(Rect(x: sides.x, y: sides.y, width: 1, height: sides.height), with: symbols.vertical, style: borderStyle) }
        if hasRight, area.width > 1 || !hasLeft {
            buffer.fill(Rect(x: sides.maxX - 1, y: sides.y, width: 1, height: sides.height), with: symbols.vertical, style: borderStyle)
        }
        if let title, borders.contains(.top) {
            let titleArea = Rect(x: area.x + (hasLeft ? 1 : 0), y: area.y, width: area.width - (hasLeft ? 1 : 0) - (hasRight ? 1 : 0), height: 1)
            // A title too long for the edge ends in `…` instead of being cut off mid-word.
            var text = " " + title + " "
            if TextWidth.of(text) > titleArea.width, titleArea.width > 2 {
                var kept = "", used = 0
                for character in text {
                    let width = TextWidth.of(String(character))
                    guard used + width <= titleArea.width - 1 else { break }
                    kept.append(character)
                    used += width
                }
                text = kept + "…"
            }
            buffer.set(string: text, at: titleArea.origin, style: titleStyle, clip: titleArea)
        }
    }

    private func edge(at y: Int, of area: Rect, left: Character?, right: Character?, into buffer: inout Buffer) {
        buffer.fill(Rect(x: area.x, y: y, width: area.width, height: 1), with: symbols.horizontal, style: borderStyle)
        if let right { buffer.fill(Rect(x: area.maxX - 1, y: y, width: 1, height: 1), with: right, style: borderStyle) }
        if let left { buffer.fill(Rect(x: area.x, y: y, width: 1, height: 1), with: left, style: borderStyle) }
    }
}
