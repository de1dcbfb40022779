import Stops

/// The lanes that run now (not parked, blocked or waking). A lab run has a handful at a time,
/// so they sit in an array searched in place: a launch and a finish append and remove without
/// hashing, and the array keeps its room between operations. Past ``limit`` lanes (a scenario
/// that runs many operations at once) they move to a set, and back once none runs.
struct RunningLanes: Sendable {
    static let limit = 32

    private var few: [LaneKey] = []
    private var many: Set<LaneKey>?

    var isEmpty: Bool { many?.isEmpty ?? few.isEmpty }
    var count: Int { many?.count ?? few.count }

    /// The one lane that runs; nil when none or several do.
    var only: LaneKey? {
        if let many { return many.count == 1 ? many.first : nil }
        return few.count == 1 ? few[0] : nil
    }

    func contains(_ key: LaneKey) -> Bool {
        if let many { return many.contains(key) }
        return few.contains(key)
    }

    mutating func insert(_ key: LaneKey) {
        if many != nil {
            many!.insert(key)
        } else if !few.contains(key) {
            if few.count < RunningLanes.limit {
                few.append(key)
            } else {
                var all = Set(few)
                all.insert(key)
                many = all
                few.removeAll(keepingCapacity: true)
            }
        }
    }

    mutating func remove(_ key: LaneKey) {
        if many != nil {
            many!.remove(key)
            if many!.isEmpty { many = nil }
        } else if let index = few.lastIndex(of: key) {
            // Order means nothing here: the last lane takes the removed one's place.
            few.swapAt(index, few.count - 1)
            few.removeLast()
        }
    }

    /// The requests whose lanes run.
    var requests: Set<Int> {
        if let many { return Set(many.map(\.request)) }
        return Set(few.map(\.request))
    }
}
