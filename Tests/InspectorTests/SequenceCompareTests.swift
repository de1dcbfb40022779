import ChainKit
import Foundation
import Inspector
import Lab
import TerminalUI
import Testing
import Timeline

@Suite("The sequence diagram and compare")
struct SequenceCompareTests {
    /// token-expiry run to its end: attempt 1 gets a 401 for the expired token, the token
    /// manager refreshes, attempt 2 succeeds.
    static func tokenExpiry(size: Size) async -> Driver {
        let driver = Driver("token-expiry", size: size)
        await driver.press(.char("n"), .char("c"))
        return driver
    }

    /// stale-token run to its end (every retry after a refresh carries the token captured
    /// before it, until MaxRetryInterceptor gives up on attempt 5), then attempt 2 shown
    /// with the transport's pre-flight selected: what it sent.
    static func staleToken(size: Size) async -> Driver {
        let driver = Driver("stale-token", size: size)
        await driver.press(.char("n"), .char("c"))
        #expect(driver.state.lab.requests.map(\.attempt) == [5])
        await driver.press(.char("["), .char("["), .char("["), .tab)
        let transport = driver.state.hops.firstIndex { $0.kind == .transport }!
        while driver.state.selectedHop != transport { await driver.press(.char(driver.state.selectedHop < transport ? "j" : "k")) }
        await driver.press(.char("h"))
        #expect(driver.state.shownAttempt == 2)
        return driver
    }

    static func squeezed(_ screen: [String]) -> [String] {
        screen.map { $0.replacing(/\ {2,}/, with: " ") }
    }

    static func pane(_ screen: [String], _ prefix: String) -> [String] {
        guard let top = screen.firstIndex(where: { $0.contains("┌ " + prefix) }) else { return [] }
        return Array(screen[(top + 1)...].prefix { !$0.contains("└") })
    }

    @Test("S turns the Chain pane into token-expiry's sequence: hops as columns, ↓ and ↑, the refresh column, attempt 2 under a divider")
    func tokenExpirySequence() async {
        let driver = await Self.tokenExpiry(size: Size(width: 120, height: 80))
        #expect(driver.state.lab.requests.map(\.attempt) == [2])
        await driver.press(.char("S"))
        #expect(driver.state.chainView == .sequence)
        #expect(driver.state.focus == .chain)
        // Every row in view: the diagram maximized.
        await driver.press(.char("+"))
        let screen = driver.screen()
        #expect(screen.contains { $0.contains("┌ Sequence · #1 HeroQuery · 2 attempts · A: all · S: hops") })
        let rows = Self.squeezed(Self.pane(screen, "Sequence"))
        #expect(rows.contains { $0.contains("↻ attempt 2") })
        #expect(rows.contains { $0.contains("↓ Auth +Authorization") })
        #expect(rows.contains { $0.contains("cache miss") })
        #expect(rows.contains { $0.contains("received 401") })
        #expect(rows.contains { $0.contains("refresh POST /oauth/token") })
        #expect(rows.contains { $0.contains("refresh answer 200") })
        #expect(rows.contains { $0.contains("received 200") })
        await driver.press(.char("S"))
        #expect(driver.state.chainView == .hops)
    }

    @Test("token-expiry's sequence diagram at 80x24 and 160x48")
    func tokenExpirySnapshots() async {
        for size in [Size(width: 80, height: 24), Size(width: 160, height: 48)] {
            let driver = await Self.tokenExpiry(size: size)
            await driver.press(.char("S"), .char("g"))
            expectSnapshot(driver.screen(), named: "sequence-token-expiry-\(size.width)x\(size.height)")
        }
    }

    @Test("a click on a row of the diagram selects that event everywhere, as j/k do")
    func clickingARowSelectsTheEvent() async {
        let driver = await Self.tokenExpiry(size: Size(width: 120, height: 40))
        await driver.press(.char("S"), .char("g"), .tab)
        #expect(driver.state.focus != .chain)
        // The refresh's answer: the token endpoint's row, beside the hops.
        await driver.mouse(driver.click(on: "refresh answer 200"))
        #expect(driver.state.focus == .chain)
        #expect(driver.state.chainView == .sequence)
        #expect(driver.state.selectedHop == driver.state.hops.count, "the refresh row follows the last hop")
        let answer = driver.state.sequenceSeq
        #expect(answer != nil)
        // The last AuthInterceptor pre-flight in the diagram is the one after the refresh: hop 2,
        // going down, in attempt 2 (the latest, shown by default).
        await driver.mouse(driver.click(on: "↓ Auth", last: true))
        #expect(driver.state.selectedHop == 1 && driver.state.selectedSide == .pre)
        #expect(driver.state.selectedAttempt == nil && driver.state.shownAttempt == 2)
        #expect(driver.state.sequenceSeq.map { $0 > answer! } == true)
        #expect(driver.screen().contains { $0.contains("Hop 2 AuthInterceptor · pre-flight · attempt 2 of 2") })
    }

    @Test("j/k in the diagram select the event everywhere: request, attempt, hop and side; Detail follows")
    func selectingARowSelectsTheEvent() async {
        let driver = await Self.tokenExpiry(size: Size(width: 120, height: 40))
        await driver.press(.char("S"), .char("g"))
        // The first event: #1 held before MaxRetryInterceptor (step mode), attempt 1.
        #expect(driver.state.selectedAttempt == 1)
        #expect(driver.state.selectedHop == 0 && driver.state.selectedSide == .pre)
        #expect(driver.screen().contains { $0.contains("Hop 1 MaxRetryInterceptor · pre-flight · attempt 1 of 2") })
        let held = driver.state.sequenceSeq ?? 0
        // Then MaxRetryInterceptor handing the request down: the same hop and side, the next row.
        await driver.press(.char("j"))
        #expect(driver.state.selectedHop == 0 && (driver.state.sequenceSeq ?? 0) > held)
        await driver.press(.char("j"))
        #expect(driver.state.selectedHop == 1 && driver.state.selectedSide == .pre)
        #expect(driver.screen().contains { $0.contains("Hop 2 AuthInterceptor · pre-flight · attempt 1 of 2") })
        // The last event is attempt 2's cache write at the cache step, on the way up.
        await driver.press(.char("G"))
        #expect(driver.state.selectedAttempt == nil && driver.state.shownAttempt == 2)
        let cache = driver.state.hops.firstIndex { $0.kind == .cache }!
        #expect(driver.state.selectedHop == cache && driver.state.selectedSide == .post)
        // Back to the hops: the same hop and side are selected there.
        await driver.press(.char("S"))
        #expect(driver.state.chainView == .hops)
        #expect(driver.screen().contains { $0.contains("Hop \(cache + 1) cache · post-flight · attempt 2 of 2") })
    }

    @Test("A interleaves refresh-storm's two requests: numbered rows, both held at the refresh stop, both refreshes sent")
    func stormInterleaved() async {
        let driver = await HistoryTests.finishedStorm(size: Size(width: 120, height: 120))
        // Every row in view: the diagram maximized.
        await driver.press(.char("A"), .char("+"))
        #expect(driver.state.chainView == .allRequests && driver.state.focus == .chain)
        let rows = Self.squeezed(Self.pane(driver.screen(), "Sequence"))
        // The two requests held at the refresh stop with the same refresh token, on adjacent rows.
        // Both requests held at the refresh stop, #1 first, then the refreshes they send.
        let holds = rows.filter { $0.contains("⏸ held at refresh (step)") }
        #expect(holds.count == 2 && holds.first?.hasPrefix("│#1 ") == true && holds.last?.hasPrefix("│#2 ") == true)
        let refreshes = rows.filter { $0.contains("refresh POST /oauth/token") }
        #expect(refreshes.count == 2 && refreshes.first?.hasPrefix("│#1 ") == true && refreshes.last?.hasPrefix("│#2 ") == true)
        #expect(rows.contains { $0.contains("#2") && $0.contains("refresh answer 400 inval") })
        #expect(rows.contains { $0.contains("#1") && $0.contains("refresh answer 200") })
        await driver.press(.char("A"))
        #expect(driver.state.chainView == .sequence)
    }

    @Test("watcher: every request's sequence names #1's deliveries, and Detail shows what each delivered")
    func watcherDeliveries() async {
        let driver = Driver("watcher", size: Size(width: 160, height: 60), stepMode: false)
        await driver.press(.char("n"), .char("n"), .char("n"))
        #expect(driver.state.lab.requests.map(\.operation) == ["HeroQuery", "RenameHero", "RenameHero"])
        await driver.press(.char("A"), .char("G"))
        let rows = Self.squeezed(Self.pane(driver.screen(), "Sequence"))
        #expect(rows.filter { $0.contains("│#1 ") && $0.contains("◆ watcher delivered again") }.count == 2)
        func delivered() -> [String] { Self.squeezed(Self.pane(driver.screen(), "GraphQLQueryWatcher · #1 delivered again")) }
        #expect(delivered().first?.contains("│the store changed Hero:2001.name; HeroQuery delivered") == true)
        #expect(delivered().contains { $0.contains(#""name": "R2-D2""#) })
        // Up the diagram to the first delivery, past #3's 28 rows.
        var moves = 0
        repeat {
            await driver.press(.char("k"))
            moves += 1
        } while !delivered().contains(where: { $0.contains(#""name": "Artoo-Detoo""#) }) && moves < 40
        #expect(moves == 28)
    }

    @Test("watcher, stepped: #1's delivery comes with the step that takes #2 past its last stop, not before")
    func watcherDeliveryIsStepped() async {
        let driver = Driver("watcher")
        await driver.press(.char("n"), .char("c"))
        #expect(driver.state.lab.requests.map(\.state) == [.succeeded])
        await driver.press(.char("n"))
        func deliveries() -> Int { driver.session.timeline().events().filter { $0.name == LabSession.watcherDeliveryEventName }.count }
        var steps = 0
        while driver.state.lab.requests.last?.isFinished == false, steps < 40 {
            #expect(deliveries() == 0)
            await driver.press(.char("s"))
            steps += 1
        }
        #expect(driver.state.lab.requests.map(\.state) == [.succeeded, .succeeded])
        // #2, a mutation, has no cache read: eleven stops down and up again.
        #expect(steps == 11)
        #expect(deliveries() == 1)
    }

    @Test("refresh-storm's sequence of every request at 80x24 and 160x48")
    func stormSnapshots() async {
        for size in [Size(width: 80, height: 24), Size(width: 160, height: 48)] {
            let driver = await HistoryTests.finishedStorm(size: size)
            await driver.press(.char("A"))
            expectSnapshot(driver.screen(), named: "sequence-storm-all-\(size.width)x\(size.height)")
        }
    }

    @Test("p at stale-token's transport: the Authorization the retry sends is the one that got the 401")
    func staleTokenCompare() async {
        let driver = await Self.staleToken(size: Size(width: 120, height: 40))
        await driver.press(.char("p"))
        guard case .compare(let comparison) = driver.state.modal else {
            Issue.record("no compare opened: \(String(describing: driver.state.notice))")
            return
        }
        let left = comparison.left, right = comparison.right
        #expect(left.attempt == 1 && right.attempt == 2)
        #expect(left.phase == .send && right.phase == .send)
        let screen = Self.squeezed(driver.screen())
        #expect(screen.contains { $0.contains("⚠ Authorization did not change, though a refresh succeeded between them") })
        #expect(screen.contains { $0.contains("= Authorization Bearer ••••") })
        await driver.press(.escape)
        #expect(driver.state.modal == nil)
    }

    @Test("stale-token's compare at 80x24 and 160x48")
    func staleTokenSnapshots() async {
        for size in [Size(width: 80, height: 24), Size(width: 160, height: 48)] {
            let driver = await Self.staleToken(size: size)
            await driver.press(.char("p"))
            expectSnapshot(driver.screen(), named: "compare-stale-token-\(size.width)x\(size.height)")
        }
    }

    @Test("# on refresh-storm's refresh row: #1 and #2 presented the same refresh token")
    func stormSameRefreshToken() async {
        let driver = await HistoryTests.finishedStorm(size: Size(width: 120, height: 40))
        await driver.press(.tab, .char("G"), .char("h"))
        #expect(driver.state.selectsRefresh && driver.state.selectedRequest == 2)
        await driver.press(.char("#"))
        guard case .compare(let comparison) = driver.state.modal else {
            Issue.record("no compare opened: \(String(describing: driver.state.notice))")
            return
        }
        let left = comparison.left, right = comparison.right
        #expect(left.request == 1 && right.request == 2)
        #expect(left.kind == .auth && right.kind == .auth && left.phase == .send && right.phase == .send)
        var screen = Self.squeezed(driver.screen())
        #expect(screen.contains { $0.contains("⚠ the same refresh_token in both") })
        #expect(screen.contains { $0.contains("bodies: the same") })
        #expect(!screen.contains { $0.contains("refresh-1-1") }, "masked until revealed")
        await driver.press(.char("v"))
        screen = Self.squeezed(driver.screen())
        #expect(driver.state.revealSecrets)
        #expect(screen.contains { $0.contains("refresh_token") && $0.contains("-1-1") })
    }

    @Test("m marks, = compares with the mark; d compares what a hop received with what it passed on")
    func markAndCompare() async {
        let driver = await Self.tokenExpiry(size: Size(width: 120, height: 40))
        await driver.press(.char("="))
        #expect(driver.state.modal == nil)
        #expect(driver.state.notice?.text == "no event is marked: m marks the selected one")
        await driver.press(.tab, .char("g"), .char("h"), .char("m"))
        let marked = driver.state.marked?.seq
        #expect(marked != nil)
        #expect(driver.state.notice?.text.hasPrefix("marked #1 attempt 2 · Hop 1 MaxRetryInterceptor · pre-flight") == true)
        await driver.press(.char("="))
        #expect(driver.state.notice?.text == "this is the marked event: select another one to compare with it")
        await driver.press(.char("j"), .char("="))
        guard case .compare(let comparison)? = driver.state.modal else {
            Issue.record("no compare opened")
            return
        }
        #expect(comparison.left.seq == marked)
        #expect(comparison.right.name == "AuthInterceptor")
        await driver.press(.escape)
        // d on AuthInterceptor's pre-flight: what MaxRetry handed it vs what it handed on.
        await driver.press(.char("d"))
        guard case .compare(let change)? = driver.state.modal else {
            Issue.record("no compare opened by d")
            return
        }
        #expect(change.left.name == "MaxRetryInterceptor")
        #expect(change.right.name == "AuthInterceptor")
        #expect(Self.squeezed(driver.screen()).contains { $0.contains("+ Authorization — │ Bearer ••••") })
        await driver.press(.escape, .char("k"), .char("d"))
        #expect(driver.state.notice?.text == "the top hop received the operation as it was started: nothing above it to compare with")
        await driver.press(.char("["), .char("p"))
        #expect(driver.state.notice?.text == "attempt 1 has no previous attempt to compare with")
    }

    @Test("Detail shows the GraphQL document and variables at every GraphQL hop")
    func graphQLHopsShowTheirRequest() async {
        let driver = await Self.tokenExpiry(size: Size(width: 120, height: 60))
        await driver.press(.tab, .char("g"), .char("h"))
        for hop in driver.state.hops.prefix(while: { $0.kind == .graphql }) {
            #expect(driver.state.selectedHop == hop.index)
            let screen = driver.screen()
            #expect(screen.contains { $0.contains("GraphQL request (as \(hop.name) handed it on)") }, "at \(hop.name)")
            #expect(screen.contains { $0.contains("operation HeroQuery") }, "at \(hop.name)")
            await driver.press(.char("j"))
        }
    }

    @Test("the line diff keeps common lines, orders removals before additions, finds a longest common subsequence")
    func lineDiff() {
        #expect(LineDiff.edits(["{", "a", "}"], ["{", "b", "}"]) == [.same("{"), .removed("a"), .added("b"), .same("}")])
        #expect(LineDiff.edits(["a", "b", "c", "d"], ["a", "c", "d", "e"]) == [.same("a"), .removed("b"), .same("c"), .same("d"), .added("e")])
        #expect(LineDiff.edits([], ["x"]) == [.added("x")])
        #expect(LineDiff.edits(["x"], []) == [.removed("x")])
        #expect(LineDiff.edits(["same"], ["same"]) == [.same("same")])
        // Myers' example: ABCABBA against CBABAC has a common subsequence of four.
        let edits = LineDiff.edits("ABCABBA".map(String.init), "CBABAC".map(String.init))
        #expect(edits.filter { if case .same = $0 { true } else { false } }.count == 4)
        #expect(edits.compactMap { if case .removed(let line) = $0 { line } else if case .same(let line) = $0 { line } else { nil } }.joined() == "ABCABBA")
        #expect(edits.compactMap { if case .added(let line) = $0 { line } else if case .same(let line) = $0 { line } else { nil } }.joined() == "CBABAC")
    }
}
