/// A bordered box centred over whatever is already drawn, blanking the cells under it,
/// with optional content inside: help screens, confirmations, editors.
///
/// ```swift
/// Modal(title: "Quit?", width: 30, height: 5, symbols: terminal.symbols,
///       content: Paragraph(["2 requests are paused.", "y quit  n stay"]))
///     .render(in: screen, into: &buffer)
/// ```
public struct Modal: Widget {
    public var title: String?
    /// The box's outer size; shrunk to the area when the area is smaller.
    public var width: Int
    public var height: Int
    public var symbols: Symbols
    public var borderStyle: Style
    public var content: (any Widget)?

    public init(
        title: String? = nil, width: Int, height: Int, symbols: Symbols = .unicode,
        borderStyle: Style = .plain, content: (any Widget)? = nil
    ) {
        self.title = title
        self.width = width
        self.height = height
        self.symbols = symbols
        self.borderStyle = borderStyle
        self.content = content
    }

    private var block: Block {
        Block(title: title, symbols: symbols, borderStyle: borderStyle, titleStyle: borderStyle)
    }

    /// Where the box goes within `area`.
    public func box(in area: Rect) -> Rect {
        area.centered(width: width, height: height)
    }

    /// Where the content goes within `area`: inside the box's border.
    public func contentArea(in area: Rect) -> Rect {
        block.inner(box(in: area))
    }

    public func render(in area: Rect, into buffer: inout Buffer) {
        let box = box(in: area)
        guard !box.isEmpty else { return }
        buffer.fill(box)
        block.render(in: box, into: &buffer)
        content?.render(in: block.inner(box), into: &buffer)
    }
}
