import Testing
import Timeline

@Suite("A view of the timeline up to a seq")
struct TimelineViewTests {
    private func event(request: Int, hop: Int) -> TimelineEvent {
        TimelineEvent(time: 0, request: request, attempt: 1, hop: hop, name: "hop\(hop)", kind: .graphql, phase: .preflight)
    }

    @Test func eventsAppendedAfterTheViewNeverShowThroughIt() {
        let store = TimelineStore()
        store.append(event(request: 1, hop: 0))
        store.append(event(request: 2, hop: 0))
        store.append(event(request: 1, hop: 1))
        let view = store.view(upTo: store.lastSeq)
        store.append(event(request: 1, hop: 2))
        store.append(event(request: 3, hop: 0))
        #expect(view.lastSeq == 3)
        #expect(view.events().map(\.seq) == [1, 2, 3])
        #expect(view.events(request: 1).map(\.hop) == [0, 1])
        #expect(view.events(request: 3).isEmpty)
        #expect(store.view(upTo: 1).events().map(\.seq) == [1])
        #expect(store.view(upTo: 0).events().isEmpty)
    }
}
