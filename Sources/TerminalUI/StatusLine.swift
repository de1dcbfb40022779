/// One row of key hints, `s step  c continue  ? help  q quit`, with optional text at the
/// right edge (a scenario name). Hints that do not fit are dropped from the right; the
/// right-hand text is shown only when it fits beside the hints that are shown.
///
/// ```swift
/// StatusLine([.init("s", "step"), .init("q", "quit")], trailing: "basics")
///     .render(in: statusArea, into: &buffer)
/// ```
public struct StatusLine: Widget, Hashable, Sendable {
    public struct Hint: Hashable, Sendable {
        public var key: String
        public var action: String

        /// A hint with no action, such as `…` for the hints left out, is its key alone.
        public init(_ key: String, _ action: String) {
            self.key = key
            self.action = action
        }

        /// The columns the hint takes: its key, a space and its action.
        public var width: Int { TextWidth.of(key) + (action.isEmpty ? 0 : 1 + TextWidth.of(action)) }
    }

    public var hints: [Hint]
    public var trailing: String?
    public var keyStyle: Style
    public var actionStyle: Style

    public init(_ hints: [Hint], trailing: String? = nil, keyStyle: Style = .bold, actionStyle: Style = .plain) {
        self.hints = hints
        self.trailing = trailing
        self.keyStyle = keyStyle
        self.actionStyle = actionStyle
    }

    private static let separator = 2

    /// The columns `hints` take on one line, two spaces apart: what an app needs to decide
    /// which hints to offer before drawing them.
    public static func width(of hints: [Hint]) -> Int {
        hints.reduce(0) { $0 + $1.width } + max(0, hints.count - 1) * separator
    }

    /// Where each hint that fits is drawn in `area`, in order; hints that do not fit have none.
    public func hintAreas(in area: Rect) -> [Rect] {
        guard !area.isEmpty else { return [] }
        var used = 0
        var areas: [Rect] = []
        for (index, hint) in hints.enumerated() {
            let gap = index == 0 ? 0 : StatusLine.separator
            let hintWidth = hint.width
            guard index == 0 || used + gap + hintWidth <= area.width else { break }
            let x = area.x + used + gap
            let width = min(hintWidth, area.maxX - x)
            areas.append(Rect(x: x, y: area.y, width: max(0, width), height: 1))
            used = min(x + hintWidth - area.x, area.width)
        }
        return areas
    }

    public func render(in area: Rect, into buffer: inout Buffer) {
        guard !area.isEmpty else { return }
        let row = Rect(x: area.x, y: area.y, width: area.width, height: 1)
        var used = 0
        for (hint, place) in zip(hints, hintAreas(in: area)) {
            var x = buffer.set(string: hint.key, at: place.origin, style: keyStyle, clip: row)
            if !hint.action.isEmpty {
                x = buffer.set(string: " ", at: Position(x: x, y: area.y), style: actionStyle, clip: row)
                x = buffer.set(string: hint.action, at: Position(x: x, y: area.y), style: actionStyle, clip: row)
            }
            used = min(x - area.x, area.width)
        }
        if let trailing {
            let trailingWidth = TextWidth.of(trailing)
            let gap = used == 0 ? 0 : StatusLine.separator
            if used + gap + trailingWidth <= area.width {
                buffer.set(string: trailing, at: Position(x: area.maxX - trailingWidth, y: area.y), style: actionStyle, clip: row)
            }
        }
    }
}
