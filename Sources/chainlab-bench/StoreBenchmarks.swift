import Foundation
import Timeline

/// `store.append.single`, `store.append.concurrent` and `store.bytes_per_event`.
enum StoreBenchmarks {
    static let producers = 4
    static let eventsForMemory = 1_000_000

    static func run(_ sampling: Sampling, _ selection: Selection) async throws -> [Row] {
        let templates = try TypicalTraffic().events(request: 1)
        let count = sampling.appendsPerBatch
        var rows: [Row] = []
        if selection.includes("store.append.single") {
            let rate = try await Sampler.ratePerSecond(units: count, batches: sampling.batches / 2 + 1, prepare: TimelineStore.init) { store in
                appendTypical(count, requestsFrom: 0, templates: templates, into: store)
            }
            rows.append(.measured(Figure(name: "store.append.single", value: rate, unit: "events/s", target: .atLeast(5_000_000))))
        }
        if selection.includes("store.append.concurrent") {
            let share = count / producers
            let rate = try await Sampler.ratePerSecond(units: share * producers, batches: sampling.batches / 2 + 1, prepare: TimelineStore.init) { store in
                await withTaskGroup(of: Void.self) { group in
                    for producer in 0..<producers {
                        // Disjoint request ids per producer, as concurrent operations have.
                        group.addTask { appendTypical(share, requestsFrom: producer * share, templates: templates, into: store) }
                    }
                }
            }
            rows.append(.measured(Figure(name: "store.append.concurrent", value: rate, unit: "events/s")))
        }
        if selection.includes("store.bytes_per_event") {
            rows.append(try bytesPerEventInChildProcess())
        }
        return rows
    }

    /// Appends `count` copies of the templates, renumbered into consecutive requests.
    static func appendTypical(_ count: Int, requestsFrom first: Int, templates: [TimelineEvent], into store: TimelineStore) {
        var index = 0, request = first / templates.count + 1
        for _ in 0..<count {
            var event = templates[index]
            event.request = request
            // Moved in, as the instrumentation's events are: passing the variable would copy it.
            store.append(consume event)
            index += 1
            if index == templates.count {
                index = 0
                request += 1
            }
        }
    }

    /// Runs ``measureBytesPerEvent()`` in a fresh copy of this executable, so nothing the
    /// other benchmarks allocated (and the allocator kept) is in its resident set.
    static func bytesPerEventInChildProcess() throws -> Row {
        let output = try ChildProcess.run(arguments: [ChildProcess.flag, "store.bytes_per_event"])
        guard let value = Double(output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            return .unmeasured(UnmeasuredFigure(
                name: "store.bytes_per_event", unit: "B/event", target: .atMost(128),
                reason: "not measured: \(output.trimmingCharacters(in: .whitespacesAndNewlines))"))
        }
        return .measured(Figure(name: "store.bytes_per_event", value: value, unit: "B/event", target: .atMost(128)))
    }

    /// Resident memory growth per event over a million typical events, in bytes; in the
    /// child process. Everything the events point at (snapshots, header lists, per-request
    /// ids) is built during the run and counted, as it would be in a lab session.
    static func measureBytesPerEvent() throws -> String {
        let traffic = TypicalTraffic()
        let store = TimelineStore()
        // The first request touches the store's first chunk and the allocator's size classes.
        for event in try traffic.events(request: 1) { store.append(event) }
        guard let before = ResidentMemory.bytes() else { return "/proc/self/statm is not readable on this system" }
        var request = 2
        while store.count < eventsForMemory + TypicalTraffic.eventsPerRequest {
            for event in try traffic.events(request: request) { store.append(event) }
            request += 1
        }
        guard let after = ResidentMemory.bytes() else { return "/proc/self/statm is not readable on this system" }
        let appended = store.count - TypicalTraffic.eventsPerRequest
        return withExtendedLifetime(store) { String(Double(after - before) / Double(appended)) }
    }
}

enum ResidentMemory {
    /// The resident set size from `/proc/self/statm` (its second field, in pages).
    static func bytes() -> Int? {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
