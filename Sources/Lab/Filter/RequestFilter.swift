import Scheduling
package import Timeline
public import TimelineFilter

extension ParkedStop {
    /// The phase of what is at the stop: the request on the way down, the result or error
    /// on the way up (a refresh stop counts as the way up).
    package var arrivalPhase: Phase {
        if case .hop(_, .pre) = place { return .preflight }
        return .postflight
    }

    /// What a breakpoint rule's filter reads at this stop: the request's events so far, then
    /// what is at the stop, which has no event of its own yet.
    package func filterSubject(operation: String, events: [TimelineEvent]) -> FilterSubject {
        FilterSubject(operation: operation, events: events + [event(time: 0, phase: arrivalPhase, snapshot: snapshot, detail: nil)])
    }
}

extension LabSession.RunResult {
    /// The ids of the requests `filter` lets through, ascending: finished requests with
    /// their outcome, unfinished ones with what they recorded.
    public func requests(matching filter: FilterExpression, operationNames: [Int: String]) -> [Int] {
        let findings = self.findings
        let summaries = Dictionary(uniqueKeysWithValues: requests.map { ($0.id, $0) })
        var events: [Int: [TimelineEvent]] = [:]
        for event in self.events where event.request > 0 { events[event.request, default: []].append(event) }
        let ids = Set(summaries.keys).union(unfinished).union(events.keys).sorted()
        return ids.filter { id in
            let summary = summaries[id]
            let subject = FilterSubject(
                operation: summary?.operation ?? operationNames[id] ?? "", events: events[id] ?? [],
                failed: summary?.outcome == .failure, results: summary?.results ?? [],
                hasFinding: findings.contains { $0.requests.contains(id) })
            return filter.matches(subject)
        }
    }

    /// The run with only the requests `filter` lets through: their summaries and events,
    /// and the findings of the whole run that cite one of them.
    public func filtered(by filter: FilterExpression, operationNames: [Int: String]) -> LabSession.RunResult {
        limited(to: Set(requests(matching: filter, operationNames: operationNames)))
    }

    /// The run with only the requests `kept`: their summaries and events, and the findings
    /// of the whole run that cite one of them. The backend's counters stay the whole run's.
    public func limited(to kept: Set<Int>) -> LabSession.RunResult {
        let findings = self.findings.filter { !kept.isDisjoint(with: $0.requests) }
        var result = self
        result.requests = requests.filter { kept.contains($0.id) }
        result.events = events.filter { kept.contains($0.request) }
        result.unfinished = unfinished.filter { kept.contains($0) }
        result.keptFindings = findings
        return result
    }
}
