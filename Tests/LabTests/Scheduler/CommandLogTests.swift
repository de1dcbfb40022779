@testable import Lab
@testable import Scheduling
import Testing
import Timeline

/// The commands that took effect, as a recording holds them, and those refused.
@Suite("Command log")
struct CommandLogTests {
    @Test("an entry names the lane it is given, and none when given none; a command about no stop is kept as it is")
    func lanes() {
        var log = CommandLog(keepsEntries: true)
        log.record(.pass(request: 1), at: .hop(2, .post), lane: .network)
        log.record(.step(request: 1, lane: .cache), at: .hop(1, .pre))
        log.record(.launch(operation: 3), at: nil, lane: .cache)
        #expect(log.entries == [
            RecordedCommand(command: .pass(request: 1, lane: .network), place: .hop(2, .post)),
            RecordedCommand(command: .step(request: 1), place: .hop(1, .pre)),
            RecordedCommand(command: .launch(operation: 3), place: nil),
        ])
        #expect(log.refusals.isEmpty)
    }

    @Test("without entries kept, refusals still are, in order and in words")
    func refusals() {
        var log = CommandLog(keepsEntries: false)
        log.record(.expireTokens, at: nil)
        log.refuse(.step(request: 2), .notWaiting(stop: "request #2"))
        log.refuse(.force401(request: 1), .networkFetchOverlaps(stop: "request #1 (cache lane)"))
        #expect(log.entries.isEmpty)
        #expect(log.refusals.map(\.command) == [.step(request: 2), .force401(request: 1)])
        #expect(log.refusals.map(\.reason) == [
            "request #2 is not waiting at a stop",
            "request #1 (cache lane) cannot retry or answer 401 while its network fetch overlaps; step the network lane to its end first",
        ])
    }
}
