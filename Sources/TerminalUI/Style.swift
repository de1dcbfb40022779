/// Text attributes a terminal can show on a cell.
public struct Attributes: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let bold = Attributes(rawValue: 1 << 0)
    public static let dim = Attributes(rawValue: 1 << 1)
    public static let reverse = Attributes(rawValue: 1 << 2)
    public static let underline = Attributes(rawValue: 1 << 3)
}

/// How a cell is drawn: foreground and background colours and attributes.
///
/// ```swift
/// let title = Style(foreground: .cyan, attributes: .bold)
/// let selected = Style.reverse
/// ```
public struct Style: Hashable, Sendable {
    public var foreground: Color
    public var background: Color
    public var attributes: Attributes

    public init(foreground: Color = .default, background: Color = .default, attributes: Attributes = []) {
        self.foreground = foreground
        self.background = background
        self.attributes = attributes
    }

    /// The terminal's own colours, no attributes.
    public static let plain = Style()
    public static let bold = Style(attributes: .bold)
    public static let dim = Style(attributes: .dim)
    public static let reverse = Style(attributes: .reverse)
    public static let underline = Style(attributes: .underline)

    /// The style as one number, distinct for distinct styles: the foreground's
    /// ``Color/code`` in the low 9 bits, the background's in the next 9, the attributes above.
    package var code: UInt32 {
        foreground.code | background.code << 9 | UInt32(attributes.rawValue) << 18
    }

    /// This style with `overlay` laid over it: the overlay's colours win unless they are
    /// `.default`, and attributes are combined. Highlighting a row this way keeps the
    /// colours of the text in it.
    ///
    /// ```swift
    /// Style(foreground: .red).patched(with: .reverse)
    /// // == Style(foreground: .red, attributes: .reverse)
    /// ```
    public func patched(with overlay: Style) -> Style {
        Style(
            foreground: overlay.foreground == .default ? foreground : overlay.foreground,
            background: overlay.background == .default ? background : overlay.background,
            attributes: attributes.union(overlay.attributes)
        )
    }
}
