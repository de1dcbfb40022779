/// The operation each launched request runs, by request id. Ids are handed out as #1, #2…
/// in launch order, so request `id`'s operation sits at `id - 1`: launching appends, reading
/// indexes, and the requests come in id order, all without hashing.
public struct LaunchedRequests: Sendable, Hashable, Sequence {
    private var operations: [Int] = []

    public init() {}

    /// How many requests were launched.
    public var count: Int { operations.count }
    public var isEmpty: Bool { operations.isEmpty }

    /// The ids of the launched requests, in order: `1...count`.
    public var ids: Range<Int> { 1..<operations.count + 1 }

    /// The operation request `request` runs; nil when no such request was launched.
    public subscript(request: Int) -> Int? {
        request >= 1 && request <= operations.count ? operations[request - 1] : nil
    }

    /// The same, as a dictionary.
    public var byRequest: [Int: Int] { Dictionary(uniqueKeysWithValues: map { ($0.request, $0.operation) }) }

    /// Records that request `request`, the next id, runs operation `operation`.
    mutating func launch(_ request: Int, operation: Int) {
        precondition(request == operations.count + 1, "request ids are handed out in order: expected #\(operations.count + 1), got #\(request)")
        operations.append(operation)
    }

    public func makeIterator() -> some IteratorProtocol<(request: Int, operation: Int)> {
        operations.enumerated().lazy.map { (request: $0.offset + 1, operation: $0.element) }.makeIterator()
    }
}

/// The requests that finished. Requests mostly finish in about the order they were launched,
/// so the set is every id below a mark and the few finished above it: recording a finish in
/// order is a comparison and an increment, with no hashing, and the set stays small however
/// many requests ran.
public struct FinishedRequests: Sendable, Hashable, ExpressibleByArrayLiteral {
    /// Every request from #1 up to (not including) this one has finished.
    private var below = 1
    /// The finished requests above the mark.
    private var above: Set<Int> = []

    public init() {}

    public init(arrayLiteral requests: Int...) {
        for request in requests { insert(request) }
    }

    public var count: Int { below - 1 + above.count }
    public var isEmpty: Bool { count == 0 }

    public func contains(_ request: Int) -> Bool {
        (request >= 1 && request < below) || above.contains(request)
    }

    /// Records that `request` (from 1) finished; recording it again changes nothing.
    mutating func insert(_ request: Int) {
        guard request >= below else { return }
        guard request == below else {
            above.insert(request)
            return
        }
        below += 1
        while !above.isEmpty, above.remove(below) != nil { below += 1 }
    }

    /// The finished requests, in order.
    public var sorted: [Int] { Array(1..<below) + above.sorted() }
}
