import Foundation
import Inspector
import Lab
import TerminalUI
import Timeline

/// The Inspector screen's figures from issue 7: `frame.render.1k`, `frame.render.1m`,
/// `frame.growth` and `startup.first_frame`.
///
/// A frame is what the app does when the lab changed: `LabViewBuilder.view()` (incremental:
/// it reads only the events since the previous view), `Inspector.update(.labChanged)`,
/// `Inspector.render` of the full 200x60 screen into a fresh buffer, and `diff` against the
/// previous frame. Before each timed frame one typical event is appended to the store
/// (untimed), so every frame has something new to read.
///
/// The store holds events of a real `basics` session (a few operations run through the lab,
/// the last one selected, its AuthInterceptor hop shown in Detail, the Timeline focused and
/// scrolled to the end), then typical traffic (``TypicalTraffic``, 14 events a request)
/// appended directly until it holds 1,000 or 1,000,000 events. The appended requests were
/// not launched by the session's scheduler, so the Requests pane and the waterfall list the
/// same launched requests at both sizes: the growth is the price of the events in the store.
enum ScreenBenchmarks {
    static let size = Size(width: 200, height: 60)
    /// Operations the session runs for real before the store is filled.
    static let launched = 8
    /// The Chain pane's selected hop: AuthInterceptor, whose pre-flight adds a header.
    static let selectedHop = 1
    static let frameTarget = Target.atMost(8)
    static let growthTarget = Target.atMost(2)
    static let startupTarget = Target.atMost(150)
    static let startupFlag = "startup.first_frame"

    static func run(_ sampling: Sampling, _ selection: Selection) async throws -> [Row] {
        var rows: [Row] = []
        let wantsGrowth = selection.includes("frame.growth")
        let sizes = [(name: "frame.render.1k", events: 1_000), (name: "frame.render.1m", events: 1_000_000)]
            .filter { wantsGrowth || selection.includes($0.name) }
        if !sizes.isEmpty {
            var rigs: [FrameRig] = []
            for size in sizes { rigs.append(try await FrameRig(events: size.events)) }
            let medians = measureFrames(rigs, sampling: sampling)
            var figures: [String: Figure] = [:]
            for (size, median) in zip(sizes, medians) {
                let figure = Figure(name: size.name, value: median, unit: "ms", target: size.events == 1_000_000 ? frameTarget : nil)
                figures[size.name] = figure
                if selection.includes(size.name) { rows.append(.measured(figure)) }
            }
            if wantsGrowth, let small = figures["frame.render.1k"], let large = figures["frame.render.1m"] {
                rows.append(.measured(Figure(name: "frame.growth", value: large.value / small.value, unit: "×", target: growthTarget)))
            }
        }
        if selection.includes(startupFlag) {
            rows.append(try firstFrameInChildProcesses(runs: sampling.fixedOperations == nil ? sampling.batches : 1))
        }
        return rows
    }

    /// Median milliseconds per frame of each rig. Frames of the rigs alternate, so machine
    /// noise falls on each alike; every frame is timed on its own and the median reported.
    static func measureFrames(_ rigs: [FrameRig], sampling: Sampling) -> [Double] {
        let frames = sampling.fixedOperations ?? sampling.batches * 25
        let warmup = sampling.fixedOperations == nil ? 20 : 1
        for rig in rigs {
            for _ in 0..<warmup { _ = rig.timedFrame() }
        }
        var samples = Array(repeating: [Double](), count: rigs.count)
        for _ in 0..<frames {
            for (index, rig) in rigs.enumerated() { samples[index].append(rig.timedFrame()) }
        }
        return samples.map { Sampler.median($0) / 1e6 }
    }

    // MARK: - startup.first_frame

    /// Starts this executable `runs` times as `--child startup.first_frame` and reports the
    /// median time from just before the spawn to the child's first frame.
    ///
    /// Both ends read `CLOCK_MONOTONIC`, which is one clock for every process on the machine:
    /// the parent reads it right before `Process.run()`, the child right after its first
    /// frame was drawn into a `TestBackend`, and prints it. So the figure covers spawning,
    /// loading and initialising the executable, building the session and the first frame,
    /// and none of the time the parent takes to read the child's output.
    static func firstFrameInChildProcesses(runs: Int) throws -> Row {
        var samples: [Double] = []
        for _ in 0..<runs {
            let spawned = monotonicNanoseconds()
            let output = try ChildProcess.run(arguments: [ChildProcess.flag, startupFlag]).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let drawn = UInt64(output) else {
                return .unmeasured(UnmeasuredFigure(name: startupFlag, unit: "ms", target: startupTarget, reason: "not measured: \(output)"))
            }
            samples.append(Double(drawn - spawned) / 1e6)
        }
        return .measured(Figure(name: startupFlag, value: Sampler.median(samples), unit: "ms", target: startupTarget))
    }

    /// In the child: a `basics` session, its view builder and the inspector's first frame
    /// drawn into an in-memory terminal; then `CLOCK_MONOTONIC` in nanoseconds.
    static func measureFirstFrame() throws -> String {
        guard let scenario = Catalog.scenario(named: "basics") else { throw BenchFailure("no basics scenario") }
        let session = LabSession(scenario: scenario, defaultMode: .step)
        let builder = LabViewBuilder(session: session)
        let terminal = TestBackend(width: size.width, height: size.height)
        let state = InspectorState(scenario: session.scenario, lab: builder.view(), size: terminal.size, symbols: terminal.symbols)
        terminal.draw { Inspector.render(state, into: &$0) }
        let drawn = monotonicNanoseconds()
        guard terminal.writes.count == 1 else { throw BenchFailure("the first frame was not drawn") }
        return String(drawn)
    }

    static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}

/// One inspector over one store, drawing frame after frame as ``ScreenBenchmarks`` describes.
final class FrameRig {
    let session: LabSession
    /// The session's store, which the frames append to directly.
    let store: TimelineStore
    let builder: LabViewBuilder
    var state: InspectorState
    var previous: Buffer
    private let templates: [TimelineEvent]
    private var appended = 0
    private let firstAppendedRequest: Int

    init(events: Int) async throws {
        guard var scenario = Catalog.scenario(named: "basics") else { throw BenchFailure("no basics scenario") }
        scenario.launch = Array(repeating: 0, count: ScreenBenchmarks.launched)
        let store = TimelineStore()
        self.store = store
        session = LabSession(scenario: scenario, store: store, recordsLog: false)
        let result = await session.runHeadless()
        guard result.requests.count == ScreenBenchmarks.launched, result.requests.allSatisfy({ $0.outcome == .success }) else {
            throw BenchFailure("the basics operations did not all succeed")
        }
        templates = try TypicalTraffic().events(request: 1)
        // The filling requests are numbered after the launched ones, and the requests of the
        // frames' events after those.
        let filling = max(0, events - store.count)
        StoreBenchmarks.appendTypical(filling, requestsFrom: ScreenBenchmarks.launched * templates.count, templates: templates, into: store)
        firstAppendedRequest = ScreenBenchmarks.launched + (filling + templates.count - 1) / templates.count + 1
        builder = LabViewBuilder(session: session)
        state = InspectorState(scenario: scenario, lab: builder.view(), size: ScreenBenchmarks.size)
        _ = Inspector.update(&state, .labChanged(builder.view()))
        state.selectedRequest = ScreenBenchmarks.launched
        state.selectedHop = ScreenBenchmarks.selectedHop
        state.focus = .timeline
        state.timelineScroll = state.visibleRequests.count
        previous = Buffer(size: state.size)
        Inspector.render(state, into: &previous)
        guard state.selectedRow != nil, previous.lines.contains(where: { $0.contains("Hop 2 AuthInterceptor · pre-flight") }) else {
            throw BenchFailure("the selected request's AuthInterceptor pre-flight is not on the screen")
        }
    }

    /// Appends one event (untimed), then draws one frame; returns the frame's nanoseconds.
    func timedFrame() -> Double {
        var event = templates[appended % templates.count]
        event.request = firstAppendedRequest + appended / templates.count
        store.append(event)
        appended += 1
        let start = Sampler.clock.now
        let view = builder.view()
        _ = Inspector.update(&state, .labChanged(view))
        var buffer = Buffer(size: state.size)
        Inspector.render(state, into: &buffer)
        let changes = buffer.diff(from: previous)
        previous = buffer
        let elapsed = Sampler.nanoseconds(Sampler.clock.now - start)
        withExtendedLifetime(changes) {}
        return elapsed
    }
}
