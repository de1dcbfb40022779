import Foundation
import Lab
import Vocabulary

/// libFuzzer entry point for the IPv6-literal client's answer reader
/// (`IPv6LiteralExchange.readAnswer`), which reads what a server at `http://[IPv6]:port`
/// sends over a plain socket.
///
/// Input: one byte `k`, then the bytes a server sends. Properties: the answer does not
/// depend on how the bytes arrive (whole, or in pieces of `k + 1` bytes); a status is from
/// 100 to 599; a body is never longer than the limit (the default 1 MiB and 16 bytes); a
/// refusal is a `RemoteFailure` whose message has no raw control characters.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIPv6Answer(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let stride = bytes.first.map({ Int($0) + 1 }) else { return 0 }
    let answer = Data(bytes.dropFirst())
    for method in ["GET", "HEAD"] {
        for limit in [1 << 20, 16] {
            let whole = read(answer, pieceSize: max(answer.count, 1), method: method, limit: limit)
            let pieces = read(answer, pieceSize: stride, method: method, limit: limit)
            guard whole == pieces else { fatalError("the answer depends on how its bytes arrived:\nwhole:  \(whole)\npieces: \(pieces)") }
            switch whole {
            case .success(let read):
                guard (100...599).contains(read.status) else { fatalError("status \(read.status) accepted") }
                guard read.body.count <= limit else { fatalError("a body of \(read.body.count) bytes passed the limit \(limit)") }
            case .failure(let message):
                if let unsafe = message.unicodeScalars.first(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
                    fatalError("the error message holds U+\(String(unsafe.value, radix: 16)) raw: \(message.debugDescription)")
                }
            }
        }
    }
    return 0
}

enum Outcome: Equatable {
    case success(IPv6LiteralExchange.Answer)
    case failure(String)
}

func read(_ answer: Data, pieceSize: Int, method: String, limit: Int) -> Outcome {
    var offset = answer.startIndex
    do {
        return .success(try IPv6LiteralExchange.readAnswer(method: method, limit: limit, url: "http://[::1]:4000/graphql") {
            guard offset < answer.endIndex else { return nil }
            let end = min(offset + pieceSize, answer.endIndex)
            defer { offset = end }
            return answer[offset..<end]
        })
    } catch let failure as RemoteFailure {
        return .failure(failure.description)
    } catch {
        fatalError("not a RemoteFailure: \(error)")
    }
}
