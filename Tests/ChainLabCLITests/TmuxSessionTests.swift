import Testing

/// The end-to-end tests step a request and wait for it to settle at its next stop; a step
/// sent before it has settled is applied at that stop and carries the request past it.
@Suite("Where the end-to-end tests see a request held")
struct TmuxSessionTests {
    /// The Chain pane of `cache-and-network` with both lanes past the cache hit, as drawn at
    /// 120×40, with the two lanes' cells given.
    func chainPane(hop1Post: String, hop5Pre: String) -> String {
        """
        ┌ Requests ────────────────────────────┐┌ Chain · #1 HeroQuery · attempt 1 of 1 · lanes cache+network, cache selected …┐
        │⏸ #1 HeroQuery paused                 ││hop                            pre-flight ↓           post-flight ↑           │
        │                                      ││  1 MaxRetryInterceptor        ✓                      \(hop1Post)│
        │                                      ││  2 AuthInterceptor            ✓ +Authorization       ✓                       │
        │                                      ││  3 AutomaticPersistedQuery    ✓                      ✓                       │
        │                                      ││  4 cache (CacheAndNetwork)    hit                    ·                       │
        │                                      ││  5 ResponseCodeInterceptor    \(hop5Pre)·                       │
        └──────────────────────────────────────┘└──────────────────────────────────────────────────────────────────────────────┘
        """
    }

    @Test("with two lanes the request is at a stop only when its selected lane (◀) is")
    func theSelectedLaneDecides() {
        let bothHeld = TmuxSession.whereHeld(chainPane(hop1Post: "⏸ held · cache ◀        ", hop5Pre: "⏸ held · network       "))
        #expect(bothHeld.isHeld)
        #expect(bothHeld.lines.count == 3)

        // The selected lane has left its stop; the other lane's stop is still on the screen.
        let selectedMoving = TmuxSession.whereHeld(chainPane(hop1Post: "·                       ", hop5Pre: "⏸ held · network       "))
        #expect(selectedMoving.isHeld == false)
        #expect(selectedMoving.lines.count == 2)

        let selectedWaiting = TmuxSession.whereHeld(chainPane(hop1Post: "·                       ", hop5Pre: "… waiting its turn · network ◀"))
        #expect(selectedWaiting.isHeld)
        #expect(selectedWaiting.finished == false)
    }

    @Test("with one lane any held or waiting cell is a stop; none is not")
    func oneLane() {
        #expect(TmuxSession.whereHeld(chainPane(hop1Post: "✓                       ", hop5Pre: "⏸ held                 ")).isHeld)
        #expect(TmuxSession.whereHeld(chainPane(hop1Post: "✓                       ", hop5Pre: "… waiting its turn     ")).isHeld)
        #expect(TmuxSession.whereHeld(chainPane(hop1Post: "✓                       ", hop5Pre: "✓                      ")).isHeld == false)
    }
}
