/// A vertical list of one-row items with an optional selection that is always scrolled
/// into view.
///
/// ```swift
/// let list = List(requests.map { Line($0.summary) }, selected: state.selected, offset: state.listOffset)
/// list.render(in: area, into: &buffer)
/// state.listOffset = list.offset(visibleRows: area.height)   // keep for the next frame
/// ```
public struct List: Widget, Hashable, Sendable {
    public var items: [Line]
    public var selected: Int?
    /// The first item shown, as last stored by the app; rendering adjusts it (without
    /// changing this value) so the selection is visible.
    public var offset: Int
    /// Laid over the selected row (see `Style.patched(with:)`).
    public var highlightStyle: Style
    /// Drawn before the selected item, with as many spaces before every other item, e.g. `"> "`.
    public var highlightSymbol: String

    public init(_ items: [Line], selected: Int? = nil, offset: Int = 0, highlightStyle: Style = .reverse, highlightSymbol: String = "") {
        self.items = items
        self.selected = selected
        self.offset = offset
        self.highlightStyle = highlightStyle
        self.highlightSymbol = highlightSymbol
    }

    /// The first item shown in an area `visibleRows` tall.
    public func offset(visibleRows: Int) -> Int {
        Scrolling.offset(selected: selected, offset: offset, visibleRows: visibleRows, itemCount: items.count)
    }

    public func render(in area: Rect, into buffer: inout Buffer) {
        guard !area.isEmpty else { return }
        let first = offset(visibleRows: area.height)
        let symbolWidth = TextWidth.of(highlightSymbol)
        let padding = String(repeating: " ", count: symbolWidth)
        for (row, index) in (first..<min(items.count, first + area.height)).enumerated() {
            let y = area.y + row
            let isSelected = index == selected
            let x = buffer.set(string: isSelected ? highlightSymbol : padding, at: Position(x: area.x, y: y), clip: area)
            buffer.set(line: items[index], at: Position(x: x, y: y), clip: area)
            if isSelected {
                buffer.setStyle(highlightStyle, in: Rect(x: area.x, y: y, width: area.width, height: 1))
            }
        }
    }
}
