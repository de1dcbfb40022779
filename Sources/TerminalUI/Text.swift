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
    /// Where the rows after the first start when a paragraph wraps the line: a term's
    /// description or a header's value continues under itself, not under the term.
    public var hangingIndent: Int

    public init(_ spans: [Span], hangingIndent: Int = 0) {
        self.spans = spans
        self.hangingIndent = hangingIndent
    }

    public init(_ text: String, style: Style = .plain) {
        spans = [Span(text, style: style)]
        hangingIndent = 0
    }

    public init(stringLiteral text: String) {
        self.init(text)
    }

    /// Columns the line takes when drawn.
    public var width: Int { spans.reduce(0) { $0 + TextWidth.of($1.text) } }

    /// The line in at most `width` columns, its last visible column an `…` when anything
    /// was cut: text cut to fit never ends silently.
    public func cut(to width: Int) -> Line {
        guard width > 0 else { return Line([], hangingIndent: hangingIndent) }
        guard self.width > width else { return self }
        var kept: [Span] = []
        var room = width - 1
        for span in spans where room > 0 {
            var text = ""
            for glyph in TextWidth.glyphs(of: span.text) {
                guard glyph.width <= room else { room = 0; break }
                text.append(glyph.character)
                room -= glyph.width
            }
            kept.append(Span(text, style: span.style))
        }
        kept.append(Span("…", style: spans.last?.style ?? .plain))
        return Line(kept, hangingIndent: hangingIndent)
    }

    /// One line per line of `text`, split at LF and CRLF, all in `style`: how a header
    /// value or a body preview becomes paragraph lines.
    public static func lines(of text: String, style: Style = .plain) -> [Line] {
        text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
            .map { Line(String($0), style: style) }
    }
}
