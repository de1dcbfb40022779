/// A run of text in one style.
public struct Span: Hashable, Sendable, ExpressibleByStringLiteral {
    public var text: String
    public var style: Style

    public init(_ text: String, style: Style = .plain) {
        self.text = text
        self.style = style
    }

    public init(stringLiteral text: String) {
        self.init(text)
    }
}

/// One row of styled text: spans drawn one after another.
///
/// ```swift
/// let line = Line([Span("+ ", style: Style(foreground: .green)), Span("Authorization: Bearer ••a1f3")])
/// let plain: Line = "Content-Type: application/json"
/// ```
public struct Line: Hashable, Sendable, ExpressibleByStringLiteral {
    public var spans: [Span]

    public init(_ spans: [Span]) {
        self.spans = spans
    }

    public init(_ text: String, style: Style = .plain) {
        spans = [Span(text, style: style)]
    }

    public init(stringLiteral text: String) {
        self.init(text)
    }

    /// Columns the line takes when drawn.
    public var width: Int { spans.reduce(0) { $0 + TextWidth.of($1.text) } }

    /// One line per line of `text`, split at LF and CRLF, all in `style`: how a header
    /// value or a body preview becomes paragraph lines.
    public static func lines(of text: String, style: Style = .plain) -> [Line] {
        text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
            .map { Line(String($0), style: style) }
    }
}
