import Inspector
import TerminalUI
import Testing

/// At 40x10, the smallest screen but one the inspector draws, every pane and overlay keeps to
/// its own rectangle and the status line stays whole.
@Suite("Small screens")
struct SmallScreenTests {
    static let size = Size(width: 40, height: 10)

    /// The cells of `buffer` that hold anything, outside `area`.
    static func drawnOutside(_ area: Rect, in buffer: Buffer) -> [Position] {
        var outside: [Position] = []
        for y in 0..<buffer.height {
            for x in 0..<buffer.width where !area.contains(Position(x: x, y: y)) && buffer[x, y] != .blank {
                outside.append(Position(x: x, y: y))
            }
        }
        return outside
    }

    /// Where a pane's border in `buffer` holds something else than the border: text drawn over it.
    static func brokenBorder(_ area: Rect, in buffer: Buffer) -> [Position] {
        var broken: [Position] = []
        func expect(_ symbol: String, _ x: Int, _ y: Int) {
            if buffer[x, y].symbol != symbol { broken.append(Position(x: x, y: y)) }
        }
        for y in (area.y + 1)..<(area.maxY - 1) {
            expect("│", area.x, y)
            expect("│", area.maxX - 1, y)
        }
        expect("┌", area.x, area.y)
        expect("┐", area.maxX - 1, area.y)
        expect("└", area.x, area.maxY - 1)
        expect("┘", area.maxX - 1, area.maxY - 1)
        for x in (area.x + 1)..<(area.maxX - 1) { expect("─", x, area.maxY - 1) }
        return broken
    }

    @Test("every pane of every state draws inside its rectangle, and the status line is intact")
    func panesStayInside() async {
        let states = await KeyHintRuleTests.mainStates(size: Self.size) + KeyHintRuleTests.overlayStates(size: Self.size)
        for (name, state) in states {
            let body = Rect(x: 0, y: 0, width: Self.size.width, height: Self.size.height - 1)
            for (pane, area) in Inspector.paneAreas(state) {
                #expect(body.intersection(area) == area, "\(name): \(pane) at \(area)")
                var alone = Buffer(size: Self.size)
                Inspector.render(pane, state, in: area, into: &alone)
                #expect(Self.drawnOutside(area, in: alone) == [], "\(name): \(pane) draws outside \(area)")
                #expect(Self.brokenBorder(area, in: alone) == [], "\(name): \(pane) draws over its border")
            }
            var overlay = Buffer(size: Self.size)
            Inspector.renderOverlay(state, into: &overlay)
            #expect(Self.drawnOutside(body, in: overlay) == [], "\(name): the overlay draws over the status line")
            var screen = Buffer(size: Self.size)
            Inspector.render(state, into: &screen)
            var status = Buffer(size: Self.size)
            Inspector.renderStatusLine(state, into: &status)
            #expect(screen.lines[Self.size.height - 1] == status.lines[Self.size.height - 1], "\(name): status line")
            #expect(!status.lines[Self.size.height - 1].allSatisfy { $0 == " " }, "\(name): an empty status line")
        }
    }
}
