import Wire
import Foundation
public import Timeline

/// Detectors over a recorded run: what the timeline proves happened, each finding citing
/// the events (by seq) that prove it.
///
/// A detector never guesses: it reports a pattern only when the events show every part of
/// it, and says only what they show (a refresh storm names the family revoked only when a
/// later request was refused the winner's new token). A run without the pattern has no finding.
/// To add a detector, add a function from ``Run`` to findings to ``detectors`` and a test with
/// a run that shows the pattern and a close one that does not.
public enum RunFindings {
    /// What detectors read: the events in seq order and how each request ended.
    struct Run {
        let events: [TimelineEvent]
        let requests: [Int: RequestSummary]
        /// Each request's events in seq order, so per-request detectors stay linear.
        let byRequest: [Int: [TimelineEvent]]

        init(events: [TimelineEvent], requests: [Int: RequestSummary]) {
            self.events = events
            self.requests = requests
            byRequest = Dictionary(grouping: events, by: \.request)
        }

        func summary(_ request: Int) -> RequestSummary? { requests[request] }
        func events(of request: Int) -> [TimelineEvent] { byRequest[request] ?? [] }
    }

    /// Every finding in `events`, detector by detector.
    public static func detect(events: [TimelineEvent], requests: [RequestSummary]) -> [Finding] {
        let run = Run(
            events: events.sorted { $0.seq < $1.seq },
            requests: Dictionary(requests.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last }))
        return detectors.flatMap { $0(run) }
    }

    static let detectors: [@Sendable (Run) -> [Finding]] = [
        refreshStorm, staleTokenRetry, unboundedRetry, maxRetriesExhausted, emptyUnauthorizedNoResults, cacheFallbackHidError,
        cacheOnlyResult, sharedRefresh, storedRefreshTokenSpent,
    ]
}

// MARK: - Tokens

extension RunFindings {
    /// A token endpoint answered the person's own refresh token with a new one (rotation):
    /// the one they keep is now spent, and nothing saved the new one.
    static func storedRefreshTokenSpent(_ run: Run) -> [Finding] {
        run.events.compactMap { event -> Finding? in
            guard event.kind == .auth, event.phase == .refresh, event.status == 200, RefreshNote.presentsStored(event.detail),
                let body = event.snapshot.body?.wholeText, let answer = try? JSONValue(parsing: Data(body.utf8)),
                answer["refresh_token"]?.stringValue != nil
            else { return nil }
            return Finding(
                id: "stored-refresh-token-spent", severity: .warning,
                message: "#\(event.request)'s refresh (seq \(event.seq)) was answered with a new refresh token: the one you gave is now spent, and the next run that presents it is refused; keep the new pair with --token-file FILE",
                events: [event.seq], requests: [event.request])
        }
    }

    /// Two or more refresh_token grants presenting the same refresh token.
    static func refreshStorm(_ run: Run) -> [Finding] {
        let grants = run.events.compactMap { event in
            event.kind == .auth && event.phase == .refresh ? RefreshNote.refreshToken(of: event.detail).map { (event, $0) } : nil
        }
        let tokens = grants.map(\.1).reduce(into: [Int]()) { if !$0.contains($1) { $0.append($1) } }
        return tokens.compactMap { token -> Finding? in
            let same = grants.filter { $0.1 == token }.map(\.0)
            guard same.count >= 2 else { return nil }
            var message = "\(same.count) refreshes presented refresh token \(token) ("
                + same.map { "#\($0.request) seq \($0.seq)" }.joined(separator: ", ") + ")"
            var cited = same.map(\.seq)
            let winners = same.filter { $0.status == 200 }
            let refused = same.filter { $0.error == "invalid_grant" }
            if refused.isEmpty {
                message += ": none was refused"
            } else {
                message += ": " + (winners.first.map { "#\($0.request)'s won (200, seq \($0.seq)); " } ?? "")
                    + list(refused.map { "#\($0.request)" }) + " got invalid_grant"
            }
            if let winner = winners.first, let refusal = refusalOfNewToken(from: winner, in: run) {
                message += "; the token family was revoked: #\(winner.request)'s new access token from seq \(winner.seq) was refused at seq \(refusal.seq) (RFC 6749 §10.4)"
                cited.append(refusal.seq)
            }
            return Finding(
                id: "refresh-storm", severity: .error, message: message, events: cited.sorted(),
                requests: unique(same.map(\.request)))
        }
    }

    /// The first 401 answering a request sent with the access token `grant` obtained.
    private static func refusalOfNewToken(from grant: TimelineEvent, in run: Run) -> TimelineEvent? {
        guard let body = grant.body, !body.isTruncated, let json = try? JSONValue(parsing: body.text),
            let token = json["access_token"]?.stringValue
        else { return nil }
        return exchanges(run).first { exchange in
            exchange.send.seq > grant.seq && exchange.receive?.status == 401
                && exchange.send.headers?["Authorization"] == "Bearer \(token)"
        }?.receive
    }

    /// A retry that carried the Authorization the server had just refused with 401.
    static func staleTokenRetry(_ run: Run) -> [Finding] {
        let byRequest = Dictionary(grouping: exchanges(run), by: \.send.request)
        return byRequest.keys.sorted().compactMap { request -> Finding? in
            let sends = byRequest[request]!
            var repeats: [(refused: TimelineEvent, again: TimelineEvent)] = []
            for (earlier, later) in zip(sends, sends.dropFirst()) {
                guard let receive = earlier.receive, receive.status == 401,
                    let authorization = earlier.send.headers?["Authorization"],
                    later.send.headers?["Authorization"] == authorization
                else { continue }
                repeats.append((receive, later.send))
            }
            guard !repeats.isEmpty else { return nil }
            let message = "#\(request) retried with the Authorization the server had refused: "
                + repeats.map { "attempt \($0.again.attempt) (seq \($0.again.seq)) after the 401 at seq \($0.refused.seq)" }.joined(separator: ", ")
            return Finding(
                id: "stale-token-retry", severity: .error, message: message,
                events: repeats.flatMap { [$0.refused.seq, $0.again.seq] }.sorted(), requests: [request])
        }
    }

    /// Requests that waited for another request's refresh instead of sending their own: each
    /// woke after the refresh that answered last before it.
    static func sharedRefresh(_ run: Run) -> [Finding] {
        var grant: TimelineEvent?
        var wokenByGrant: [Int: [TimelineEvent]] = [:]
        var grants: [Int: TimelineEvent] = [:]
        for event in run.events where event.kind == .auth {
            if event.phase == .refresh, RefreshNote.refreshToken(of: event.detail) != nil {
                grant = event
            } else if event.phase == .resumed, event.detail == RefreshNote.released, let shared = grant, shared.request != event.request {
                wokenByGrant[shared.seq, default: []].append(event)
                grants[shared.seq] = shared
            }
        }
        return wokenByGrant.keys.sorted().map { seq in
            let grant = grants[seq]!
            let woken = wokenByGrant[seq]!
            let requests = unique(woken.map(\.request))
            let message = "#\(grant.request)'s refresh (seq \(seq)) was shared: " + list(requests.map { "#\($0)" })
                + " waited for it instead of refreshing, and it released \(woken.count == 1 ? "it" : "all \(woken.count)") (\(seqs(woken.map(\.seq))))"
            return Finding(
                id: "shared-refresh", severity: .info, message: message,
                events: [seq] + woken.map(\.seq), requests: unique([grant.request] + requests))
        }
    }
}

// MARK: - Retries

extension RunFindings {
    /// A request the lab's safety cap stopped: nothing in the chain limited its retries.
    static func unboundedRetry(_ run: Run) -> [Finding] {
        ended(run, where: { $0.hasPrefix("LabSafetyCapError") }).compactMap { summary -> Finding? in
            let triggers = retryTriggers(of: summary.id, in: run)
            guard !triggers.isEmpty else { return nil }
            let retried = Set(triggers.map(\.event.attempt))
            let limits = run.events(of: summary.id).filter { event in
                event.phase == .error && event.error?.hasPrefix("MaxRetriesError") == true
                    && retried.contains(event.attempt)
            }
            var message = "#\(summary.id) retried without bound: \(triggers.count) retries until the lab's safety cap stopped it after \(summary.attempts) attempts; "
                + describe(triggers)
            if !limits.isEmpty {
                message += "; \(limits.count) of them turned MaxRetriesError into another retry (\(seqs(limits.map(\.seq))))"
            }
            return Finding(
                id: "unbounded-retry", severity: .error, message: message,
                events: (triggers.map(\.event.seq) + limits.map(\.seq)).sorted(), requests: [summary.id])
        }
    }

    /// A request that failed with MaxRetriesError, with who triggered each retry.
    static func maxRetriesExhausted(_ run: Run) -> [Finding] {
        ended(run, where: { $0.hasPrefix("MaxRetriesError") }).compactMap { summary -> Finding? in
            guard let limit = run.events(of: summary.id).last(where: { $0.phase == .error && $0.error?.hasPrefix("MaxRetriesError") == true })
            else { return nil }
            let triggers = retryTriggers(of: summary.id, in: run)
            let message = "#\(summary.id) ran out of retries: MaxRetriesError on attempt \(limit.attempt) (seq \(limit.seq)); " + describe(triggers)
            return Finding(
                id: "max-retries-exhausted", severity: .warning, message: message,
                events: (triggers.map(\.event.seq) + [limit.seq]).sorted(), requests: [summary.id])
        }
    }

    /// Who started each retry of `request`: the first retry event of an attempt names the hop
    /// it left, or a person when the retry was forced.
    private static func retryTriggers(of request: Int, in run: Run) -> [(who: String, event: TimelineEvent)] {
        var triggers: [(who: String, event: TimelineEvent)] = []
        var seen: Set<Int> = []
        let events = run.events(of: request)
        for event in events where event.phase == .retry && !seen.contains(event.attempt) {
            seen.insert(event.attempt)
            let forced = event.detail?.hasPrefix("forced retry") == true
                || events.contains { $0.attempt == event.attempt && $0.phase == .injected && $0.detail == "force retry" }
            triggers.append((forced ? "a person (force retry)" : event.name, event))
        }
        return triggers
    }

    /// `retries triggered by AuthInterceptor ×4 (seq 14, 28, 42, 56)`, by first appearance.
    private static func describe(_ triggers: [(who: String, event: TimelineEvent)]) -> String {
        guard !triggers.isEmpty else { return "no retry was recorded" }
        let names = unique(triggers.map(\.who))
        return "retries triggered by " + names.map { name in
            let own = triggers.filter { $0.who == name }.map(\.event.seq)
            return "\(name) ×\(own.count) (\(seqs(own)))"
        }.joined(separator: ", ")
    }
}

// MARK: - Responses and the cache

extension RunFindings {
    /// A 401 with an empty body that ended in noResults instead of an auth error.
    static func emptyUnauthorizedNoResults(_ run: Run) -> [Finding] {
        ended(run, where: { $0.contains("noResults") }).compactMap { summary -> Finding? in
            guard let receive = run.events(of: summary.id).last(where: {
                $0.kind == .transport && $0.phase == .receive && $0.status == 401 && ($0.body?.byteCount ?? 0) == 0
            }) else { return nil }
            return Finding(
                id: "empty-401-no-results", severity: .error,
                message: "#\(summary.id) got a 401 with an empty body (seq \(receive.seq)) and failed with noResults instead of an auth error",
                events: [receive.seq], requests: [summary.id])
        }
    }

    /// A failed network step answered from the cache in the same attempt.
    static func cacheFallbackHidError(_ run: Run) -> [Finding] {
        run.requests.keys.sorted().compactMap { request -> Finding? in
            guard run.summary(request)?.outcome == .success else { return nil }
            let events = run.events(of: request)
            for failure in events where isNetworkFailure(failure) {
                guard let answer = events.first(where: { $0.seq > failure.seq && $0.attempt == failure.attempt && $0.phase == .cacheHit }) else { continue }
                let what = failure.status.map { "\($0)" } ?? "transport error"
                let unseen = !events.contains { $0.seq > failure.seq && $0.attempt == failure.attempt && $0.kind == .graphql && $0.phase == .error }
                return Finding(
                    id: "cache-fallback-hid-error", severity: .warning,
                    message: "#\(request)'s \(what) (seq \(failure.seq)) was answered from the cache (seq \(answer.seq)): the request succeeded"
                        + (unseen ? " and no GraphQL interceptor saw the error" : ""),
                    events: [failure.seq, answer.seq], requests: [request])
            }
            return nil
        }
    }

    private static func isNetworkFailure(_ event: TimelineEvent) -> Bool {
        guard event.kind == .transport else { return false }
        if event.phase == .receive, let status = event.status { return !(200..<300).contains(status) }
        return event.phase == .error
    }

    /// A request answered from the cache that never sent anything.
    static func cacheOnlyResult(_ run: Run) -> [Finding] {
        let sent = Set(run.events.filter { $0.kind == .transport && $0.phase == .send }.map(\.request))
        var reported: Set<Int> = []
        return run.events.compactMap { hit -> Finding? in
            guard hit.phase == .cacheHit, !sent.contains(hit.request), reported.insert(hit.request).inserted else { return nil }
            return Finding(
                id: "cache-only-result", severity: .info,
                message: "#\(hit.request) was answered from the cache (seq \(hit.seq)) and never reached the network",
                events: [hit.seq], requests: [hit.request])
        }
    }
}

// MARK: - Helpers

extension RunFindings {
    /// A transport send and the receive that answered it, if any.
    struct Exchange {
        let send: TimelineEvent
        let receive: TimelineEvent?
    }

    /// Every transport send with its answer: the next transport event of the same request, in
    /// the order they were sent.
    static func exchanges(_ run: Run) -> [Exchange] {
        var exchanges: [Exchange] = []
        for events in run.byRequest.values {
            let transport = events.filter { $0.kind == .transport && ($0.phase == .send || $0.phase == .receive) }
            for (index, event) in transport.enumerated() where event.phase == .send {
                let answer: TimelineEvent? = index + 1 < transport.count ? transport[index + 1] : nil
                exchanges.append(Exchange(send: event, receive: answer?.phase == .receive ? answer : nil))
            }
        }
        return exchanges.sorted { $0.send.seq < $1.send.seq }
    }

    /// The summaries of requests that failed with an error matching `test`, by id.
    static func ended(_ run: Run, where test: (String) -> Bool) -> [RequestSummary] {
        run.requests.keys.sorted().compactMap { id in
            guard let summary = run.requests[id], summary.outcome == .failure, let error = summary.error, test(error) else { return nil }
            return summary
        }
    }

    /// `seq 1, 2, 3`; a long list as how many, the first three and the last:
    /// `20 events: seq 13, 26, 39, …, 90` (the finding's `events` has them all).
    static func seqs(_ values: [Int]) -> String {
        guard values.count > 6 else { return "seq " + values.map(String.init).joined(separator: ", ") }
        return "\(values.count) events: seq " + values.prefix(3).map(String.init).joined(separator: ", ") + ", …, \(values.last!)"
    }

    /// `#2, #3 and #4`.
    static func list(_ items: [String]) -> String {
        items.count < 2 ? items.joined() : items.dropLast().joined(separator: ", ") + " and " + items.last!
    }

    static func unique<T: Hashable>(_ values: [T]) -> [T] {
        var seen: Set<T> = []
        return values.filter { seen.insert($0).inserted }
    }
}
