public import Lab
public import TerminalUI

/// Where the last frame put each thing a click can reach: panes, request rows, hop rows
/// and their sides, waterfall rows, key hints. The renderer fills it in as it draws
/// (``Inspector/render(_:into:)`` returns it), so a click is tested against the frame the
/// person saw, never against geometry worked out again.
public struct ScreenMap: Sendable, Hashable {
    public enum Target: Sendable, Hashable {
        case pane(InspectorState.Pane)
        /// A request's row in the Requests pane or the waterfall.
        case request(Int)
        /// A row of the Chain pane (a hop, or the refresh row after the last hop), and the
        /// side when the click was on its pre- or post-flight column.
        case hop(Int, side: StopPosition?)
        /// A row of the sequence diagram (`S`, `A`): the event it draws, by its seq.
        case sequenceEvent(Int)
        /// A key hint in the status line.
        case hint(Action)
    }

    public struct Region: Sendable, Hashable {
        public var rect: Rect
        public var target: Target
    }

    public private(set) var regions: [Region] = []

    public init() {}

    public mutating func add(_ rect: Rect, _ target: Target) {
        guard !rect.isEmpty else { return }
        regions.append(Region(rect: rect, target: target))
    }

    /// What is under `position`, the innermost first (what was drawn last over it).
    public func targets(at position: Position) -> [Target] {
        regions.reversed().filter { $0.rect.contains(position) }.map(\.target)
    }
}
