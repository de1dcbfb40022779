import ChainKit
import Foundation
import HTTPServer
import Outbound
import Vocabulary

/// libFuzzer entry point for the plain-HTTP client's answer reader
/// (`PlainHTTPExchange.readAnswer` over `HTTPClientConnection`, and `Inflater` below it),
/// which reads what a server at an `http://` URL sends, compressed or not.
///
/// Input: one byte `k`, then the bytes a server sends. Properties: the answer does not
/// depend on how the bytes arrive (whole, or in pieces of `k + 1` bytes); a status is from
/// 100 to 599; a body, inflated or not, is never longer than the limit (the default 1 MiB
/// and 16 bytes); a refusal is a `RemoteFailure` whose message has no raw control
/// characters. When `k` is odd the answer is read as if it had come with
/// `Content-Encoding: gzip` after its head's own fields, so the inflater sees the body.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPAnswer(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = bytes.first else { return 0 }
    let stride = Int(first) + 1
    var answer = Array(bytes.dropFirst())
    if first & 1 == 1, let end = answer.firstRange(of: Array("\r\n\r\n".utf8)) {
        answer.replaceSubrange(end.lowerBound..<end.lowerBound, with: Array("\r\nContent-Encoding: gzip".utf8))
    }
    for method in ["GET", "HEAD"] {
        for limit in [1 << 20, 16] {
            let whole = read(answer, pieceSize: max(answer.count, 1), method: method, limit: limit)
            let pieces = read(answer, pieceSize: stride, method: method, limit: limit)
            guard whole == pieces else { fatalError("the answer depends on how its bytes arrived:\nwhole:  \(whole)\npieces: \(pieces)") }
            switch whole {
            case .success(let status, _, let body):
                guard (100...599).contains(status) else { fatalError("status \(status) accepted") }
                guard body.count <= limit else { fatalError("a body of \(body.count) bytes passed the limit \(limit)") }
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
    case success(status: Int, fields: [String], body: Data)
    case failure(String)
}

func read(_ answer: [UInt8], pieceSize: Int, method: String, limit: Int) -> Outcome {
    let pieces = stride(from: 0, to: answer.count, by: pieceSize).map { Array(answer[$0..<min($0 + pieceSize, answer.count)]) }
    do throws(RemoteFailure) {
        let (head, reader) = try PlainHTTPExchange.readAnswer(
            on: .replaying(pieces), method: method, limit: limit, url: "http://[::1]:4000/graphql", timeout: 30)
        var body = Data()
        while let piece = try reader.next() { body.append(piece) }
        return .success(status: head.status.code, fields: head.headerFields.map { "\($0.name): \($0.value)" }, body: body)
    } catch {
        return .failure(error.description)
    }
}
