import Testing
import TerminalUI

@Suite struct SnapshotTests {
    /// A small inspector-like screen built only from toolkit widgets.
    func screen(width: Int, height: Int, symbols: Symbols) -> [String] {
        TextSnapshot.render(width: width, height: height) { area, buffer in
            let rows = Layout.vertical([.fill, .length(1)]).split(area)
            let panes = Layout.horizontal([.percentage(40), .fill]).split(rows[0])
            let requests = Block(title: "Requests", symbols: symbols)
            requests.render(in: panes[0], into: &buffer)
            List(["✓ #1 Hero 200", "⏸ #2 Hero", "↻ #3 Hero"], selected: 1).render(in: requests.inner(panes[0]), into: &buffer)
            let chain = Block(title: "Chain · #2", symbols: symbols)
            chain.render(in: panes[1], into: &buffer)
            Table(
                columns: [.init("hop", width: .length(9)), .init("pre ↓", width: .fill)],
                rows: [["MaxRetry", "✓"], ["Auth", "⏸ +Auth"], ["transport", "·"]],
                selected: 1
            ).render(in: chain.inner(panes[1]), into: &buffer)
            StatusLine([.init("s", "step"), .init("c", "continue"), .init("q", "quit")], trailing: "basics").render(in: rows[1], into: &buffer)
        }
    }

    @Test func inspectorLikeScreen() {
        expectSnapshot(screen(width: 44, height: 7, symbols: .unicode), named: "inspector-like-44x7")
    }

    @Test func inspectorLikeScreenInAscii() {
        expectLines(screen(width: 44, height: 7, symbols: .ascii), [
            "+ Requests -----++ Chain · #2 -------------+",
            "|✓ #1 Hero 200  ||hop       pre ↓          |",
            "|⏸ #2 Hero      ||MaxRetry  ✓              |",
            "|↻ #3 Hero      ||Auth      ⏸ +Auth        |",
            "|               ||transport ·              |",
            "+---------------++-------------------------+",
            "s step  c continue  q quit            basics",
        ])
    }

    @Test func degradesWithoutCrashingDownToNothing() {
        for (width, height) in [(0, 0), (1, 1), (2, 2), (20, 6), (5, 30)] {
            let lines = screen(width: width, height: height, symbols: .unicode)
            #expect(lines.count == height)
        }
        expectLines(screen(width: 20, height: 6, symbols: .unicode), [
            "┌ Requ…┐┌ Chain · …┐",
            "│✓ #1 H││hop       │",
            "│⏸ #2 H││MaxRetry  │",
            "│↻ #3 H││Auth      │",
            "└──────┘└──────────┘",
            "s step  c continue  ",
        ])
    }

    @Test func lineDiffShowsBothSidesFramed() {
        #expect(TextSnapshot.lineDiff(expected: ["ab ", "cd"], actual: ["ab ", "ce", "x"]) == """
            Rendered lines differ (- expected, + actual):
              |ab |
            - |cd|
            + |ce|
            + |x|
            """)
        #expect(TextSnapshot.lineDiff(expected: ["a"], actual: ["a"]) == nil)
    }
}
