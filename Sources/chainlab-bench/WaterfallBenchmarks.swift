import Inspector
import Lab
import TerminalUI
import Timeline

/// `frame.waterfall.10k`: one frame of the 200x60 screen with the Timeline focused on a
/// waterfall of 10,000 requests, every third of them retried once after a 401, scrolled to
/// the middle (request #5,000 selected, so its rows are the ones in view). The frame renders
/// the whole screen into a fresh buffer and diffs it against the previous one; the view
/// does not change between frames, so the figure is the price of drawing the waterfall
/// among that many requests.
enum WaterfallBenchmarks {
    static let name = "frame.waterfall.10k"
    static let requests = 10_000
    static let target = Target.atMost(8)

    static func run(_ sampling: Sampling, _ selection: Selection) throws -> [Row] {
        guard selection.includes(name) else { return [] }
        var rig = try Rig()
        let frames = sampling.fixedOperations ?? sampling.batches * 25
        for _ in 0..<(sampling.fixedOperations == nil ? 20 : 1) { _ = rig.timedFrame() }
        let samples = (0..<frames).map { _ in rig.timedFrame() }
        return [.measured(Figure(name: name, value: Sampler.median(samples) / 1e6, unit: "ms", target: target))]
    }

    struct Rig {
        var state: InspectorState
        var previous: Buffer

        init() throws {
            guard let scenario = Catalog.scenario(named: "basics") else { throw BenchFailure("no basics scenario") }
            let store = TimelineStore()
            let session = LabSession(scenario: scenario, store: store, recordsLog: false)
            let templates = try TypicalTraffic().events(request: 1)
            var view = LabView(timeline: store.view(upTo: 0), chain: session.chain, chainHops: session.chainHops, stepMode: false)
            for request in 1...WaterfallBenchmarks.requests {
                let start = Double(request) * 0.001
                let attempts = request % 3 == 0 ? 2 : 1
                for attempt in 1...attempts {
                    for template in templates {
                        var event = template
                        event.request = request
                        event.attempt = attempt
                        event.time = start + Double(attempt - 1) * 0.024 + (event.kind == .transport && event.phase == .receive ? 0.012 : 0)
                        store.append(event)
                    }
                }
                view.requests.append(RequestRow(
                    id: request, operation: "HeroQuery", attempt: attempts, state: .succeeded, status: 200,
                    start: start, end: start + Double(attempts) * 0.024 - 0.012))
            }
            view.timeline = store.view(upTo: store.lastSeq)
            view.clock = view.requests.last!.end
            state = InspectorState(scenario: scenario, lab: view, size: ScreenBenchmarks.size)
            state.selectedRequest = WaterfallBenchmarks.requests / 2
            state.focus = .timeline
            previous = Buffer(size: state.size)
            Inspector.render(state, into: &previous)
            guard previous.lines.contains(where: { $0.hasPrefix("│#5000 ") }) else { throw BenchFailure("request #5000 is not in the waterfall's view") }
        }

        mutating func timedFrame() -> Double {
            let start = Sampler.clock.now
            var buffer = Buffer(size: state.size)
            Inspector.render(state, into: &buffer)
            let changes = buffer.diff(from: previous)
            previous = buffer
            let elapsed = Sampler.nanoseconds(Sampler.clock.now - start)
            withExtendedLifetime(changes) {}
            return elapsed
        }
    }
}
