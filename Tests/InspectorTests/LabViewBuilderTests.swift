import Inspector
import Lab
import TerminalUI
import Testing
import Timeline
import TimelineFilter

/// What ``LabViewBuilder`` keeps from one view to the next (the rows of requests that did
/// not change, the events frames read) gives the views a builder reading the session once
/// gives (`input.latency.10k`, `input.type.char`).
@Suite("Lab views built from the last one")
struct LabViewBuilderTests {
    /// The screen `view` gives with request `selected` selected, the Timeline focused.
    func screen(_ view: LabView, _ session: LabSession, selected: Int?) -> [String] {
        var state = InspectorState(scenario: session.scenario, lab: view, size: Size(width: 160, height: 48))
        _ = Inspector.update(&state, .labChanged(view))
        state.selectedRequest = selected
        state.focus = .timeline
        var buffer = Buffer(size: state.size)
        Inspector.render(state, into: &buffer)
        return buffer.lines
    }

    @Test("rows kept from view to view are the rows a fresh builder makes, at every step of a run")
    func keptRowsMatchFreshOnes() async throws {
        let session = LabSession(scenario: try #require(Catalog.scenario(named: "basics")), defaultMode: .step)
        let builder = LabViewBuilder(session: session)
        func compare() -> LabView {
            let kept = builder.view(), fresh = LabViewBuilder(session: session).view()
            #expect(kept.requests == fresh.requests)
            #expect(kept.summaries == fresh.summaries)
            #expect(kept.hops == fresh.hops)
            #expect(screen(kept, session, selected: 2) == screen(fresh, session, selected: 2))
            return kept
        }
        #expect(compare().requests.isEmpty)
        for _ in 0..<3 { session.launch() }
        await session.waitUntilSettled()
        #expect(compare().requests.map(\.state) == [.paused, .paused, .paused])
        for _ in 0..<4 {
            session.submit(.step(request: 2, lane: nil))
            await session.waitUntilSettled()
            _ = compare()
        }
        session.submit(.resume(request: 2, lane: nil))
        await session.waitUntilSettled()
        let afterTwo = compare()
        #expect(afterTwo.requests.map(\.state) == [.paused, .succeeded, .paused])
        #expect(afterTwo.summaries.map(\.id) == [2])
        session.submit(.resumeAll)
        await session.waitUntilSettled()
        let end = compare()
        #expect(end.requests.map(\.state) == [.succeeded, .succeeded, .succeeded])
        #expect(end.summaries.map(\.id) == [1, 2, 3])
        // #2 went to the server; #1 and #3, released after it, read what it cached.
        #expect(end.requests.map(\.status) == [nil, 200, nil])
        #expect(end.requests.map(\.cause) == ["cache", "200", "cache"])
    }

    @Test("a request's events read by a frame are read again once it has new ones; an older view keeps its own")
    func eventsFollowTheView() async throws {
        let session = LabSession(scenario: try #require(Catalog.scenario(named: "basics")), defaultMode: .step)
        let builder = LabViewBuilder(session: session)
        session.launch()
        await session.waitUntilSettled()
        let first = builder.view()
        let before = first.events(of: 1)
        #expect(!before.isEmpty)
        #expect(before.map(\.seq) == first.timeline.events(request: 1).map(\.seq))
        session.submit(.step(request: 1, lane: nil))
        await session.waitUntilSettled()
        let second = builder.view()
        let after = second.events(of: 1)
        #expect(after.map(\.seq) == second.timeline.events(request: 1).map(\.seq))
        #expect(after.count > before.count)
        #expect(Array(after.prefix(before.count)).map(\.seq) == before.map(\.seq))
        // The first view still answers as of its own seq, read twice or not.
        #expect(first.events(of: 1).map(\.seq) == before.map(\.seq))
        #expect(second.events(of: 1).map(\.seq) == after.map(\.seq))
        #expect(builder.view().events(of: 1).map(\.seq) == after.map(\.seq))
    }

    @Test("a filter in force reads again only the rows the builder made again, and lets through what reading every row does")
    func filterFollowsRemadeRows() async throws {
        let session = LabSession(scenario: try #require(Catalog.scenario(named: "basics")), defaultMode: .step)
        let builder = LabViewBuilder(session: session)
        func filtered(_ view: LabView) -> InspectorState {
            var state = InspectorState(scenario: session.scenario, lab: view, size: Size(width: 120, height: 40))
            for key in [.char("/")] + "!~c 200".map(Key.char) + [.enter] { _ = Inspector.update(&state, .key(key)) }
            return state
        }
        var state = filtered(builder.view())
        #expect(state.filter?.source == "!~c 200")
        func check() -> [Int] {
            _ = Inspector.update(&state, .labChanged(builder.view()))
            let fresh = filtered(LabViewBuilder(session: session).view())
            #expect(state.visibleRequests == fresh.visibleRequests)
            // Rows set by hand are filtered when asked for, not taken from what the last
            // filtering kept: the same rows.
            var byHand = state
            byHand.lab.requests = state.lab.requests
            #expect(byHand.visibleRequests == state.visibleRequests)
            return state.visibleRequests.map(\.id)
        }
        for _ in 0..<3 { session.launch() }
        await session.waitUntilSettled()
        #expect(check() == [1, 2, 3])
        session.submit(.resume(request: 2, lane: nil))
        await session.waitUntilSettled()
        #expect(check() == [1, 3])
        session.submit(.resumeAll)
        await session.waitUntilSettled()
        #expect(check() == [1, 3])
        #expect(state.lab.requests.map(\.state) == [.succeeded, .succeeded, .succeeded])
    }

    @Test("events the store's cap dropped are gone from the next view, even when a frame read them before")
    func droppedEventsAreReadAgain() async throws {
        let session = LabSession(scenario: try #require(Catalog.scenario(named: "basics")), store: try TimelineStore(cap: 20))
        let builder = LabViewBuilder(session: session)
        session.launch()
        await session.waitUntilSettled()
        let first = builder.view()
        #expect(first.requests.map(\.state) == [.succeeded])
        let read = first.events(of: 1)
        #expect(read.count == first.timeline.events(request: 1).count)
        #expect(read.count > 0 && read.count <= 20)
        // Two more requests take the store past its cap: the finished #1 goes first.
        session.launch()
        session.launch()
        await session.waitUntilSettled()
        let second = builder.view()
        #expect(second.timeline.events(request: 1).isEmpty)
        #expect(second.events(of: 1).isEmpty)
        #expect(second.events(of: 3).map(\.seq) == second.timeline.events(request: 3).map(\.seq))
    }
}
