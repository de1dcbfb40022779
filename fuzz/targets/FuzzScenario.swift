import ChainKit
import Foundation
import Lab
import Vocabulary

/// libFuzzer entry point for `ScenarioCodec.decode(_:)`.
///
/// Any bytes either decode to a scenario that encodes to text which decodes back to the same
/// scenario (and encodes to the same text again), or are refused with a `ScenarioError`
/// whose message is safe to print on a terminal.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzScenario(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = Data(UnsafeBufferPointer(start: data, count: size))
    let scenario: Scenario
    do {
        scenario = try ScenarioCodec.decode(input)
    } catch {
        let message = error.description
        guard !message.isEmpty else { fatalError("ScenarioError with an empty description") }
        if let unsafe = message.unicodeScalars.first(where: VisibleEscapes.isUnsafe) {
            fatalError("ScenarioError shows \(VisibleEscapes.escaped(unsafe)) raw: \(VisibleEscapes.escape(message))")
        }
        return 0
    }
    let text = ScenarioCodec.encode(scenario)
    let again: Scenario
    do {
        again = try ScenarioCodec.decode(Data(text.utf8))
    } catch {
        fatalError("the re-encoded scenario is refused (\(error.description)):\n\(VisibleEscapes.escape(text))")
    }
    guard again == scenario else { fatalError("encode then decode changed the scenario:\n\(VisibleEscapes.escape(text))") }
    guard ScenarioCodec.encode(again) == text else { fatalError("encoding is not stable:\n\(VisibleEscapes.escape(text))") }
    return 0
}
