import Foundation
import HTTPServer

/// libFuzzer entry point for `serve`'s `HTTPRequestParser`.
///
/// The input is a byte stream from a client. Fed whole, one byte at a time, or in uneven
/// chunks, the parser must return the same requests and end in the same state or the same
/// error, under the default limits and under small ones. Every request it returns must be
/// well formed, an error must stay final, and error messages must be safe to print.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    for limits in [HTTPRequestLimits(), HTTPRequestLimits(maxHeaderBytes: 96, maxBodyBytes: 24)] {
        let whole = ParseOutcome(input, limits: limits, chunkSizes: [input.count])
        let bytewise = ParseOutcome(input, limits: limits, chunkSizes: repeatElement(1, count: input.count))
        let uneven = ParseOutcome(input, limits: limits, chunkSizes: UnevenChunks(seed: input))
        guard whole == bytewise, whole == uneven else {
            fatalError("split input parsed differently:\nwhole:    \(whole)\nbytewise: \(bytewise)\nuneven:   \(uneven)")
        }
        for request in whole.requests { check(request, limits: limits) }
    }
    return 0
}

/// What the parser made of a byte stream: the requests, then either an error or where it
/// stopped waiting for more bytes.
struct ParseOutcome: Equatable {
    var requests: [HTTPServerRequest] = []
    var error: HTTPRequestParseError?
    var progress = HTTPRequestParser.Progress.idle
    var bufferedByteCount = 0

    init(_ input: [UInt8], limits: HTTPRequestLimits, chunkSizes: some Sequence<Int>) {
        var parser = HTTPRequestParser(limits: limits)
        var offset = 0
        var sizes = chunkSizes.makeIterator()
        while offset < input.count, error == nil {
            let end = min(offset + max(sizes.next() ?? input.count, 1), input.count)
            parser.append(input[offset..<end])
            offset = end
            do {
                while let request = try parser.nextRequest() { requests.append(request) }
            } catch {
                self.error = error
                do {
                    _ = try parser.nextRequest()
                    fatalError("the parser forgot its error \(error)")
                } catch let again {
                    guard again == error else { fatalError("the error changed from \(error) to \(again)") }
                }
                checkPrintable(error.description)
            }
        }
        if error == nil {
            progress = parser.progress
            bufferedByteCount = parser.bufferedByteCount
        }
    }
}

/// Chunk sizes from 1 to 16 bytes drawn from a generator seeded with the input, so a crash
/// reproduces from its input alone.
struct UnevenChunks: Sequence, IteratorProtocol {
    var state: UInt64

    init(seed: [UInt8]) {
        state = seed.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
    }

    mutating func next() -> Int? {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int(state >> 60) + 1
    }
}

func check(_ request: HTTPServerRequest, limits: HTTPRequestLimits) {
    guard isToken(request.method.utf8) else { fatalError("method \(request.method.debugDescription) is not a token") }
    guard !request.target.isEmpty, request.target.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
        fatalError("target \(request.target.debugDescription) has a byte outside 0x21...0x7E")
    }
    for header in request.headers {
        guard isToken(header.name.utf8) else { fatalError("header name \(header.name.debugDescription) is not a token") }
        let value = Array(header.value.utf8)
        guard !value.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
            fatalError("header value \(header.value.debugDescription) holds CR, LF or NUL")
        }
        guard value.first.map(isBlank) != true, value.last.map(isBlank) != true else {
            fatalError("header value \(header.value.debugDescription) keeps surrounding whitespace")
        }
    }
    guard request.body.count <= limits.maxBodyBytes else { fatalError("a body of \(request.body.count) bytes passed the limit") }
    let lengths = request.values(forHeader: "Content-Length")
    let chunked = !request.values(forHeader: "Transfer-Encoding").isEmpty
    if chunked {
        // A chunked body comes decoded, and never beside a Content-Length (RFC 9112 §6.3).
        guard lengths.isEmpty, request.version == .http1_1 else { fatalError("a chunked body with Content-Length, or in HTTP/1.0") }
    } else if lengths.isEmpty {
        guard request.body.isEmpty else { fatalError("a body without Content-Length or chunked coding") }
    } else {
        let declared = lengths[0].split(separator: ",").first?.trimmingCharacters(in: .whitespaces) ?? ""
        guard Int(declared) == request.body.count else { fatalError("Content-Length \(declared) for \(request.body.count) bytes") }
    }
    guard request.version == .http1_0 || request.values(forHeader: "Host").count == 1 else { fatalError("an HTTP/1.1 request without one Host") }
}

func isToken(_ bytes: String.UTF8View) -> Bool {
    !bytes.isEmpty && bytes.allSatisfy { byte in
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            || "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }
}

func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

/// Error messages quote request bytes; they must arrive escaped.
func checkPrintable(_ message: String) {
    let unsafe = message.unicodeScalars.first { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    if let unsafe { fatalError("the error message holds U+\(String(unsafe.value, radix: 16)) raw: \(message.debugDescription)") }
}
