import ChainKit
import Foundation
import Lab
import Timeline

/// A session that stops before every hop, as the inspector starts.
func steppingSession(_ name: String = "basics", scenario: Scenario? = nil) -> LabSession {
    LabSession(scenario: scenario ?? Catalog.scenario(named: name)!, defaultMode: .step)
}

extension LabSession {
    /// Carries out `command` and waits until nothing moves.
    func perform(_ command: LabCommand) async {
        submit(command)
        await waitUntilSettled()
    }

    /// Where request `request` is held, if it is.
    func place(of request: Int) -> StopPlace? {
        control.parked.first { $0.request == request }?.place
    }

    /// Steps request `request` until it is held at `place`; returns the places it passed.
    @discardableResult
    func step(_ request: Int, until place: StopPlace, limit: Int = 100) async -> [StopPlace] {
        var passed: [StopPlace] = []
        for _ in 0..<limit {
            guard let current = self.place(of: request) else { return passed }
            if current == place { return passed }
            passed.append(current)
            await perform(.step(request: request))
        }
        return passed
    }

    /// Launches request #1 and steps it past the cache step: under CacheAndNetwork on a warm
    /// cache, in step mode, both its lanes are then held.
    func stepToTheFork() async {
        launch()
        await waitUntilSettled()
        await step(1, until: .hop(BasicsHop.cache, .pre))
        await perform(.step(request: 1))
    }

    /// The held stops, each with its lane: `cache hop 3 post | network hop 5 pre`.
    var laneStops: String {
        control.parked.map { "\($0.lane?.rawValue ?? "-") \($0.place)" }.joined(separator: " | ")
    }

    /// Events of one phase.
    func events(_ phase: Phase) -> [TimelineEvent] {
        timeline().events().filter { $0.phase == phase }
    }
}

/// The basics chain's hops: MaxRetry 0, Auth 1, APQ 2, cache 3, ResponseCode 4, transport 5, parser 6.
enum BasicsHop {
    static let maxRetry = 0, auth = 1, apq = 2, cache = 3, responseCode = 4, transport = 5, parser = 6
}
