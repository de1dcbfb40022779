import ChainKit
import Dispatch
import Foundation
import Lab
import Vocabulary

/// libFuzzer entry point for `Recording(json:)`, `Recording.validate(for:)` and the replay.
///
/// Any bytes are either refused with a `Recording.DecodingError` whose message is safe to
/// print on a terminal, or decode to a recording that encodes to text which decodes back to
/// the same recording. A recording that also validates against its built-in scenario (basics
/// when it names none) replays headless to the end without trapping, and the session shuts
/// down with no task left.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecording(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = Data(UnsafeBufferPointer(start: data, count: size))
    let recording: Recording
    let scenario: Scenario
    do {
        recording = try Recording(json: input)
        let again = try Recording(json: Data(recording.json.utf8))
        guard again == recording else { fatalError("encode then decode changed the recording:\n\(VisibleEscapes.escape(recording.json))") }
        scenario = Catalog.scenario(named: recording.scenario) ?? Catalog.scenario(named: "basics")!
        try recording.validate(for: scenario)
    } catch {
        let message = error.description
        guard !message.isEmpty else { fatalError("DecodingError with an empty description") }
        if let unsafe = message.unicodeScalars.first(where: VisibleEscapes.isUnsafe) {
            fatalError("DecodingError shows \(VisibleEscapes.escaped(unsafe)) raw: \(VisibleEscapes.escape(message))")
        }
        return 0
    }
    // libFuzzer looks for leaks as soon as this function returns: the replay runs in a
    // function whose locals (the session, its timeline, the result) are gone when it returns,
    // and only then is the semaphore signalled. Signalled from beside them, they could still
    // be being released when the check ran, and were reported as leaked.
    let done = DispatchSemaphore(value: 0)
    Task {
        await replay(recording, scenario: scenario)
        done.signal()
    }
    done.wait()
    return 0
}

/// Replays `recording` in a session of its own; everything the run made is released when this
/// returns.
func replay(_ recording: Recording, scenario: Scenario) async {
    let session = LabSession(scenario: scenario, replay: recording.commands)
    let result = await session.runHeadless()
    await session.shutDown()
    guard session.activeTaskCount == 0 else { fatalError("a replay left \(session.activeTaskCount) tasks after shutDown") }
    guard result.requests.count + result.unfinished.count <= recording.commands.count else {
        fatalError("a replay of \(recording.commands.count) commands reported \(result.requests.count + result.unfinished.count) requests")
    }
}
