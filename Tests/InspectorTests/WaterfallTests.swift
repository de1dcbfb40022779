import Foundation
import Inspector
import Lab
import TerminalUI
import Testing
import Timeline

@Suite("The Timeline's waterfall")
struct WaterfallTests {
    /// refresh-storm-fixed with #1 refreshing while #2 waits for that refresh, both finished.
    static func sharedRefresh(size: Size) async -> Driver {
        let driver = Driver("refresh-storm-fixed", size: size)
        await driver.press(.char("n"), .char("n"), .char("g"))
        await driver.step(until: .refresh)
        await driver.press(.char("G"))
        for _ in 0..<11 { await driver.press(.char("s")) }
        await driver.press(.char("g"), .char("c"), .char("G"), .char("c"))
        return driver
    }

    static func timeline(_ screen: [String]) -> [String] {
        guard let top = screen.firstIndex(where: { $0.hasPrefix("┌ Timeline") }) else { return [] }
        return Array(screen[(top + 1)...].prefix { !$0.hasPrefix("└") })
    }

    @Test("segments say what each attempt was doing; ↻ marks the retry; the axis has round ticks and a scale")
    func segments() async {
        let driver = await Self.sharedRefresh(size: Size(width: 120, height: 40))
        let rows = Self.timeline(driver.screen())
        #expect(rows[0] == "│    ┬0ms       ┬5ms        ┬10ms      ┬15ms       ┬20ms      ┬25ms       ┬30ms      ┬35ms       ┬40ms    1 col ≈ 0.4ms│")
        // #1 is held at its refresh stop (▒) while #2 goes to the transport; #2, held at its
        // first stop meanwhile, then waits (░) for #1's refresh, and is held again while
        // #1's second attempt goes to the transport.
        #expect(rows[1] == "│#1 ▏███████████████████████████▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓▓↻████████████████████████████▏ │")
        // The wait ends in ┆, under the end of #1's refresh it waited for.
        #expect(rows[2] == "│#2 ▏▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒████████████████████████████░░░░░░░░░░░░░░░░░░░░░░░░░░░┆▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒↻▏ │")
        let join = rows[2].firstIndex(of: "┆").map { rows[2].distance(from: rows[2].startIndex, to: $0) }
        #expect(join.map { Array(rows[1])[$0] } == "▓")
        expectSnapshot(driver.screen(), named: "waterfall-shared-refresh-120x40")
    }

    @Test("a waterfall with a retry and a shared refresh at 80x24 and 160x48")
    func snapshots() async {
        for size in [Size(width: 80, height: 24), Size(width: 160, height: 48)] {
            let driver = await Self.sharedRefresh(size: size)
            await driver.press(.tab, .tab)
            expectSnapshot(driver.screen(), named: "waterfall-\(size.width)x\(size.height)")
        }
    }

    @Test("time held at a stop and a delay at the cache step take their width on the clock")
    func heldAndDelayHaveWidth() async {
        let driver = Driver("basics", size: Size(width: 120, height: 40))
        // Held at MaxRetryInterceptor's pre-flight stop while the clock moves on by a second.
        await driver.press(.char("n"), .char("t"))
        let cache = driver.state.hops.firstIndex { $0.kind == .cache }!
        await driver.step(until: .hop(cache, .pre))
        // Half a second spent at the cache step's stop.
        _ = InspectorApp.perform(.command(.delay(request: 1, seconds: 0.5)), session: driver.session, state: &driver.state)
        await driver.refresh()
        await driver.press(.char("c"))
        #expect(driver.state.lab.requests.map(\.state) == [.succeeded])
        let rows = Self.timeline(driver.screen())
        // A second held (▒), half a second at the cache step (┉), 12ms at the transport (█).
        #expect(rows[0] == "│    ┬0ms          ┬200ms         ┬400ms         ┬600ms        ┬800ms         ┬1.0s          ┬1.2s         1 col ≈ 14ms│")
        #expect(rows[1] == "│#1 ▏▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒┉┉┉┉┉┉┉┉┉┉┉┉┉┉┉┉┉┉┉┉┉┉┉┉┉┉┉┉┉┉┉┉┉┉┉┉┉██▏ │")
    }

    @Test("a refresh another request waited for is joined to the waiter's row")
    func joinedRefresh() async {
        // #1 refreshes while #3 waits for it; #2, held at its first hop, lies between them.
        let driver = Driver("refresh-storm-fixed", size: Size(width: 120, height: 40))
        await driver.press(.char("n"), .char("n"), .char("n"), .char("g"))
        await driver.step(until: .refresh)
        await driver.press(.char("G"))
        for _ in 0..<11 { await driver.press(.char("s")) }
        await driver.press(.char("g"), .char("c"), .char("G"), .char("c"))
        #expect(driver.state.lab.requests.map(\.state) == [.succeeded, .paused, .succeeded])
        let rows = Self.timeline(driver.screen())
        #expect(rows[2] == "│#2 ▏─⏸                                                                                ┆                               │")
        #expect(rows[3].contains("░┆▒"), "#3 waited until the refresh ended, then was held (step mode) until it retried")
    }

    @Test("z zooms in around the selected request, Z zooms out; the title says how far; the join stays")
    func zoom() async {
        let driver = await Self.sharedRefresh(size: Size(width: 120, height: 40))
        #expect(await driver.press(.char("z")) == [])
        #expect(driver.state.waterfallZoom == 1)
        let rows = Self.timeline(driver.screen())
        #expect(driver.screen().contains { $0.hasPrefix("┌ Timeline · lab clock 0.048s · zoom ×2 · backend") })
        #expect(rows[0].contains("1 col ≈ 0.2ms"))
        #expect(rows[2].contains("░┆▒"), "the join is drawn zoomed in too")
        await driver.press(.char("Z"), .char("Z"))
        #expect(driver.state.waterfallZoom == 0)
    }

    @Test("the waterfall keeps the selected request in view among many")
    func scrolling() async {
        let driver = Driver(size: Size(width: 100, height: 30), stepMode: false)
        for _ in 0..<6 { await driver.press(.char("N")) }
        #expect(driver.state.lab.requests.count == 30)
        await driver.press(.tab, .tab, .char("g"))
        #expect(driver.state.focus == .timeline && driver.state.selectedRequest == 1)
        #expect(Self.timeline(driver.screen())[1].hasPrefix("│#1 "))
        await driver.press(.char("G"))
        #expect(driver.state.selectedRequest == 30)
        #expect(Self.timeline(driver.screen()).contains { $0.hasPrefix("│#30 ") })
    }

    @Test("finding a request by binary search gives what a linear search gives")
    func indexOfRequest() async {
        let driver = Driver(stepMode: false)
        await driver.press(.char("N"))
        var lab = driver.state.lab
        lab.requests.remove(at: 2)
        for id in 0...6 {
            #expect(lab.index(of: id) == lab.requests.firstIndex { $0.id == id })
        }
        #expect(lab.index(of: 3) == nil && lab.index(of: 5) == 3)
    }
}
