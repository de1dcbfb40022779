import ChainKit
import Inspector
import Lab
import TerminalUI
import Testing
import Timeline

/// A request with two lanes on screen: CacheAndNetwork's network fetch overlapping the cached
/// result's way up (the `cache-and-network` scenario).
@Suite("Inspector lanes")
struct LaneInspectorTests {
    /// cache-and-network's #1 stepped past the cache hit: the cache lane is held at APQ's
    /// post-flight (hop 3), the network lane at ResponseCode's pre-flight (hop 5).
    func forked(size: Size = Size(width: 120, height: 40)) async -> Driver {
        let driver = Driver("cache-and-network", size: size)
        await driver.press(.char("n"))
        await driver.step(until: .hop(3, .pre))
        await driver.press(.char("s"))
        return driver
    }

    @Test("both stops are shown, each with its lane; the cache lane is selected first")
    func bothStops() async {
        let driver = await forked()
        #expect(driver.state.hasTwoLanes)
        #expect(driver.state.selectedStop?.place == .hop(2, .post))
        #expect(driver.state.selectedStop?.lane == .cache)
        #expect(driver.state.otherLaneStop?.place == .hop(4, .pre))
        #expect(driver.state.otherLaneStop?.lane == .network)
        let screen = driver.screen()
        #expect(screen.contains { $0.contains("lanes cache+network, cache selected") })
        #expect(screen.contains { $0.contains("⏸ held · cache ◀") })
        #expect(screen.contains { $0.contains("⏸ held · network") && !$0.contains("network ◀") })
        #expect(screen.contains { $0.contains("lanes: cache selected · network held at hop 5 pre of ResponseCodeInterceptor · u switches") })
        expectSnapshot(screen, named: "lanes-cache-selected")
        // A forced retry would drop the network fetch under way: refused at the cached result.
        let effects = await driver.press(.char("r"))
        #expect(effects == [])
        #expect(driver.state.notice?.text == "request #1's cached result cannot retry or answer 401 while its network fetch overlaps; step the network lane (u) to its end first")
    }

    @Test("u switches to the network lane: s steps it while the cache lane stays held, and u switches back")
    func switchAndStep() async {
        let driver = await forked()
        await driver.press(.char("u"))
        #expect(driver.state.selectedLane == .network)
        #expect(driver.state.selectedStop?.place == .hop(4, .pre))
        #expect(driver.state.selectedHop == 4)
        #expect(driver.state.notice?.text == "network lane: held at hop 5 pre of ResponseCodeInterceptor; s and c act on it")
        let effects = await driver.press(.char("s"))
        #expect(effects == [.command(.step(request: 1, lane: .network))])
        #expect(driver.state.selectedStop?.place == .hop(5, .pre))
        #expect(driver.state.otherLaneStop?.place == .hop(2, .post))
        expectSnapshot(driver.screen(), named: "lanes-network-selected")
        // The network lane to its end: the request has one lane again, held where the cache lane was.
        for _ in 0..<4 { await driver.press(.char("s")) }
        #expect(!driver.state.hasTwoLanes)
        #expect(driver.state.selectedStop?.place == .hop(2, .post))
        #expect(driver.state.selectedStop?.lane == nil)
        await driver.press(.char("c"))
        #expect(driver.session.summary(of: 1)?.results == ["cache", "server"])
    }

    @Test("u on a request with one lane says why it does nothing")
    func oneLane() async {
        let driver = Driver()
        await driver.press(.char("n"))
        let effects = await driver.press(.char("u"))
        #expect(effects == [])
        #expect(driver.state.selectedLane == .cache)
        #expect(driver.state.notice?.text == "request #1 has one lane: two only while a CacheAndNetwork fetch overlaps the cached result's way up")
    }
}
