import Inspector
import Lab
import TerminalUI
import Timeline

/// `input.latency.1k`: milliseconds from a key to its frame with 1,000 requests in the lab.
///
/// The lab is a `basics` session whose 1,000 operations ran through the scheduler, so every
/// one is a row of the Requests pane and the waterfall, with its events (about 14 each) in
/// the store. The inspector is an ``InspectorLoop`` on a 200x60 screen, the Requests pane
/// focused. One timed key is what the app does for a key while the lab is busy: the key
/// (`j` and `k` in turn, moving the selection, so the Chain pane and Detail change) and
/// its effects, the lab's new view (one event was appended before the key, untimed, as a
/// running lab appends them), the frame drawn as the app draws it (`InspectorLoop.frame`:
/// the panes again only when what they show changed) and diffed against the previous
/// frame. The median of the keys is reported; the target is one frame at 60 Hz. Its
/// instruction count (`scripts/instructions.sh`) is also counted in a debug build, which CI
/// holds within `debug_ratio` of the release build's (Benchmarks/instruction-budgets.json).
///
/// `input.latency.10k`: the 99th percentile of the same, with 10,000 requests run and the
/// store filled to 1,000,000 events, over keys that go round every pane (`Tab`) and move in
/// each (`j`, `k`); target one frame at 60 Hz. `input.type.char`: the median of a character
/// typed into the filter prompt (`/`) in that session while nothing else happens in the
/// lab, its frame drawn as for any key; target 1 ms.
enum InputBenchmarks {
    static let requests = 1_000
    static let target = Target.atMost(16)
    static let largeRequests = 10_000
    static let largeEvents = 1_000_000

    static func run(_ sampling: Sampling, _ selection: Selection) async throws -> [Row] {
        var rows: [Row] = []
        let keys = sampling.fixedOperations ?? sampling.batches * 25
        let warmup = sampling.fixedOperations == nil ? 20 : 1
        if selection.includes("input.latency.1k") {
            let rig = try await InputRig(requests: requests)
            // Counting instructions (`--operations`), each key waits, untimed, for the findings
            // the previous one started reading in the background, so that every key's count
            // holds one reading whatever the threads' timing.
            let counting = sampling.fixedOperations != nil
            for _ in 0..<warmup { _ = rig.timedKey() }
            var samples: [Double] = []
            for _ in 0..<keys {
                if counting { await rig.loop.findingsSettled() }
                samples.append(rig.timedKey())
            }
            rows.append(.measured(Figure(name: "input.latency.1k", value: Sampler.median(samples) / 1e6, unit: "ms", target: target)))
        }
        guard selection.includes("input.latency.10k") || selection.includes("input.type.char") else { return rows }
        let rig = try await InputRig(requests: largeRequests, filledTo: largeEvents)
        if selection.includes("input.latency.10k") {
            let round: [Key] = [.char("j"), .char("k"), .tab]
            for index in 0..<warmup { _ = rig.timedKey(round[index % round.count]) }
            let samples = (0..<max(keys, 100)).map { rig.timedKey(round[$0 % round.count]) }
            rows.append(.measured(Figure(name: "input.latency.10k", value: Sampler.percentile(99, of: samples) / 1e6, unit: "ms", target: target)))
        }
        if selection.includes("input.type.char") {
            let typed = Array("~op HeroQuery & ~c 401 & !~retry & ~h authorization")
            _ = rig.timedKey(.char("/"))
            for index in 0..<warmup { _ = rig.timedKey(.char(typed[index % typed.count])) }
            var samples: [Double] = []
            for index in 0..<keys {
                if index % typed.count == 0 {
                    _ = rig.timedKey(.escape)
                    _ = rig.timedKey(.char("/"))
                }
                samples.append(rig.timedKey(.char(typed[index % typed.count]), labQuiet: true))
            }
            rows.append(.measured(Figure(name: "input.type.char", value: Sampler.median(samples) / 1e6, unit: "ms", target: .atMost(1))))
        }
        return rows
    }
}

/// One inspector over a lab that ran `requests` operations, taking key after key.
final class InputRig {
    let loop: InspectorLoop
    /// The session's store, which the keys' events are appended to directly.
    let store = TimelineStore()
    var previous: Buffer
    private let templates: [TimelineEvent]
    private var appended = 0
    private var pressed = 0
    private let firstAppendedRequest: Int

    /// A lab that ran `requests` operations; with `events`, its store is then filled with a
    /// typical request's events, request after request, until it holds that many.
    init(requests: Int, filledTo events: Int? = nil) async throws {
        guard var scenario = Catalog.scenario(named: "basics") else { throw BenchFailure("no basics scenario") }
        scenario.launch = Array(repeating: 0, count: requests)
        let session = LabSession(scenario: scenario, store: store, recordsLog: false)
        let result = await session.runHeadless()
        guard result.requests.count == requests, result.requests.allSatisfy({ $0.outcome == .success }) else {
            throw BenchFailure("the \(requests) basics operations did not all succeed")
        }
        templates = try TypicalTraffic().events(request: 1)
        var request = requests + 1
        while let events, store.count < events {
            for var event in templates {
                event.request = request
                store.append(event)
            }
            request += 1
        }
        firstAppendedRequest = request
        loop = InspectorLoop(session: session, size: ScreenBenchmarks.size, symbols: .unicode)
        _ = loop.handle(.char("G"), size: ScreenBenchmarks.size)
        previous = loop.frame(size: ScreenBenchmarks.size)
        guard loop.state.lab.requests.count == requests, loop.state.selectedRequest != nil else {
            throw BenchFailure("the inspector does not list the \(requests) requests")
        }
    }

    /// Appends one event (untimed), then handles one key (`k` and `j` in turn unless given)
    /// and draws its frame; returns the nanoseconds from the key to the frame's changes.
    func timedKey(_ given: Key? = nil, labQuiet: Bool = false) -> Double {
        if !labQuiet {
            var event = templates[appended % templates.count]
            event.request = firstAppendedRequest + appended / templates.count
            store.append(event)
            appended += 1
        }
        let key: Key = given ?? (pressed % 2 == 0 ? .char("k") : .char("j"))
        pressed += 1
        let start = Sampler.clock.now
        _ = loop.handle(key, size: ScreenBenchmarks.size)
        _ = loop.refresh(labChanged: !labQuiet)
        let buffer = loop.frame(size: ScreenBenchmarks.size)
        let changes = buffer.diff(from: previous)
        previous = buffer
        let elapsed = Sampler.nanoseconds(Sampler.clock.now - start)
        withExtendedLifetime(changes) {}
        return elapsed
    }
}
