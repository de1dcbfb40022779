/// The Inspector screen's figures from issue 7. The screen is not built yet, so each is
/// reported as not measured rather than estimated.
///
/// Adding one is one function: write it here (say `frameRender(events:)`, which fills a store,
/// selects a request, scrolls the timeline to the end and times layout, render and diff of
/// the full 200x60 screen into the in-memory backend with ``Sampler``), and return its
/// ``Figure`` from ``run(_:_:)`` in place of the row below. `startup.first_frame` runs in a
/// child process through ``ChildProcess``, like `store.bytes_per_event`.
enum ScreenBenchmarks {
    static let notBuilt = "not measured: the inspector screen is not built yet"

    static func run(_ sampling: Sampling, _ selection: Selection) async throws -> [Row] {
        [
            UnmeasuredFigure(name: "frame.render.1k", unit: "ms", target: nil, reason: notBuilt),
            UnmeasuredFigure(name: "frame.render.1m", unit: "ms", target: .atMost(8), reason: notBuilt),
            UnmeasuredFigure(name: "frame.growth", unit: "×", target: .atMost(2), reason: notBuilt),
            UnmeasuredFigure(name: "startup.first_frame", unit: "ms", target: .atMost(150), reason: notBuilt),
        ]
        .filter { selection.includes($0.name) }
        .map(Row.unmeasured)
    }
}
