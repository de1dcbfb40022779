package import Lab
package import Timeline

/// One request's events arranged the way the Chain pane shows them: attempt by attempt, hop
/// by hop, each hop's way down (pre-flight) and way up (post-flight), and the token manager's
/// refresh exchanges the attempt waited for. Built from the store's events, so everything a
/// run showed while it was held can be looked at again once it has moved on.
package struct RequestHistory {
    /// Which way through a hop: down (`pre`) or up (`post`).
    package typealias Side = StopPosition

    /// What one pass through the chain did.
    package struct Attempt {
        package var number: Int
        package var down: [Int: [TimelineEvent]] = [:]
        package var up: [Int: [TimelineEvent]] = [:]
        /// The token manager's events (the refresh sent, its answer, the stop before it).
        package var refresh: [TimelineEvent] = []

        package func events(hop: Int, side: Side) -> [TimelineEvent] {
            (side == .pre ? down[hop] : up[hop]) ?? []
        }

        /// The event that says what the hop saw on that side: the request it handed on, the
        /// cache read, what the transport sent; or the result, error or retry coming up.
        package func main(hop: Int, side: Side) -> TimelineEvent? {
            let events = events(hop: hop, side: side)
            let phases: Set<Phase> = side == .pre ? [.preflight, .send, .cacheHit, .cacheMiss] : [.receive, .postflight, .error, .retry]
            return events.last { phases.contains($0.phase) }
        }

        /// Whether the attempt reached that side of the hop.
        package func reached(hop: Int, side: Side) -> Bool { main(hop: hop, side: side) != nil }
    }

    package var attempts: [Attempt]

    package init(events: [TimelineEvent]) {
        var attempts: [Attempt] = []
        var turned: Set<Int> = []
        for event in events where event.attempt > 0 {
            while attempts.count < event.attempt { attempts.append(Attempt(number: attempts.count + 1)) }
            let index = event.attempt - 1
            if event.kind == .auth || event.hop == TimelineEvent.noHop {
                attempts[index].refresh.append(event)
                continue
            }
            // Once the attempt has turned (a cache hit, or anything coming up), log lines
            // belong to the way up.
            if [.cacheHit, .receive, .postflight, .error, .retry].contains(event.phase) { turned.insert(event.attempt) }
            let side = Self.side(of: event) ?? (turned.contains(event.attempt) ? .post : .pre)
            if side == .pre { attempts[index].down[event.hop, default: []].append(event) } else { attempts[index].up[event.hop, default: []].append(event) }
        }
        self.attempts = attempts
    }

    /// Which way through its hop an event went, when its phase says so: nil for log lines
    /// and refresh answers, which take the side the attempt is on.
    package static func side(of event: TimelineEvent) -> Side? {
        switch event.phase {
        case .preflight, .send, .cacheMiss, .cacheHit: .pre
        case .receive, .postflight, .error, .retry: .post
        case .paused, .resumed, .edited, .injected: event.detail?.hasSuffix("post-flight") == true ? .post : .pre
        case .log, .refresh: nil
        }
    }

    /// The attempt numbered `number`, if the request made it.
    package func attempt(_ number: Int) -> Attempt? {
        attempts.indices.contains(number - 1) ? attempts[number - 1] : nil
    }

    /// Where the request ended: the hop and side of the last result, error or retry of its
    /// last attempt (the top hop's post-flight when it went all the way up).
    package var end: (hop: Int, side: Side)? {
        guard let last = attempts.last else { return nil }
        let ends = last.up.values.flatMap { $0 }.filter { [.postflight, .error, .retry].contains($0.phase) && $0.kind != .cache }
        guard let event = ends.max(by: { $0.seq < $1.seq }) else { return nil }
        return (event.hop, .post)
    }
}
