import ChainKit
import Foundation
import Vocabulary

/// libFuzzer entry point for multipart answers (`MultipartPartSplitter`, the @defer and
/// subscription part parsers, merging increments).
///
/// Input: one byte `k`, then a body cut with boundary `graphql`. Properties: the parts do not
/// depend on how the bytes arrive (the body whole and in pieces of `k + 1` bytes give the same
/// parts); every part is read by both parsers without trapping, and what they throw describes
/// itself without raw control characters; merging each increment into the last result either
/// works or throws an `IncrementalResponseError` that describes itself safely.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMultipart(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let stride = bytes.first.map({ Int($0) + 1 }) else { return 0 }
    let body = Data(bytes.dropFirst())
    let whole = split([body])
    let pieces = Swift.stride(from: 0, to: body.count, by: stride).map { body[$0..<min($0 + stride, body.count)] }
    guard split(pieces.map { Data($0) }) == whole else { fatalError("the parts depend on how the body was cut") }
    var current: ChainResponse?
    for part in whole {
        do {
            if let payload = try MultipartResponseDeferParser.parse(part: part) {
                if let items = payload["incremental"]?.arrayValue, let existing = current {
                    current = try existing.merging(incremental: items)
                } else {
                    current = ChainResponse(source: .server, data: payload["data"])
                }
            }
        } catch {
            checkSafe("\(error)")
        }
        do {
            _ = try MultipartResponseSubscriptionParser.parse(part: part)
        } catch {
            checkSafe("\(error)")
        }
    }
    return 0
}

func split(_ pieces: [Data]) -> [Data] {
    var splitter = MultipartPartSplitter(boundary: "graphql")
    var parts = pieces.flatMap { splitter.append($0) }
    if let last = splitter.finish() { parts.append(last) }
    return parts
}

func checkSafe(_ description: String) {
    if let unsafe = description.unicodeScalars.first(where: VisibleEscapes.isUnsafe) {
        fatalError("an error shows \(VisibleEscapes.escaped(unsafe)) raw: \(VisibleEscapes.escape(description))")
    }
}
