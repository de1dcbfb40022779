import Foundation
import Vocabulary

/// An incremental HTTP/1.1 request parser: feed it bytes as they arrive, take complete
/// requests out.
///
/// The parser does no I/O and keeps no clock, so it can be driven by a socket, a test or
/// a fuzzer alike, and any byte sequence yields either requests, "need more bytes" or a
/// ``HTTPRequestParseError``. It is strict where leniency lets two parties disagree on
/// where a request ends (RFC 9112 §11.2): lines must end with CRLF, bodies are framed by
/// Content-Length or by chunked coding alone (never both), and a request with neither has
/// an empty body (§6.3). A chunked body is handed over decoded, its trailers dropped.
/// Empty lines before a request line are skipped (§2.2) but count against the head limit.
///
/// ```swift
/// var parser = HTTPRequestParser()
/// parser.append(Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
/// let request = try parser.nextRequest() // GET /
/// ```
///
/// An error is final: every later ``nextRequest()`` throws it again, because after a
/// framing error nothing that follows can be trusted to start a request.
public struct HTTPRequestParser: Sendable {
    /// Where the parser is within the current request.
    public enum Progress: Sendable, Hashable {
        /// Nothing of a next request is buffered.
        case idle
        /// Some of a request head is buffered.
        case head
        /// The head is complete and valid; the body is still arriving. `expectsContinue`
        /// is true when the client sent `Expect: 100-continue` and waits for an interim
        /// `100 Continue` before sending it.
        case body(expectsContinue: Bool)
    }

    public let limits: HTTPRequestLimits

    /// Received bytes; index 0 is the first byte of the current request.
    private var buffer: [UInt8] = []
    /// The next byte the head scanner looks at.
    private var scanIndex = 0
    /// Where the line being scanned starts.
    private var lineStart = 0
    /// Completed non-empty head lines, without their CRLF.
    private var lines: [Range<Int>] = []
    private var head: Head?
    private var failure: HTTPRequestParseError?

    private struct Head: Sendable {
        var method: String
        var target: String
        var version: HTTPServerRequest.Version
        var headers: [HTTPServerHeader]
        var contentLength: Int
        var expectsContinue: Bool
        var bodyStart: Int
        /// For a chunked body: its decoder and what it decoded so far.
        var chunked: ChunkedDecoder?
        var decoded: [UInt8] = []
    }

    public init(limits: HTTPRequestLimits = HTTPRequestLimits()) {
        self.limits = limits
    }

    /// Adds received bytes.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// How many received bytes have not been returned as part of a request yet.
    public var bufferedByteCount: Int { buffer.count }

    /// Where the parser is within the current request.
    public var progress: Progress {
        if let head { return .body(expectsContinue: head.expectsContinue) }
        return buffer.isEmpty ? .idle : .head
    }

    /// The next complete request, or nil when more bytes are needed. Bytes after the
    /// request stay buffered for the next call (pipelining).
    public mutating func nextRequest() throws(HTTPRequestParseError) -> HTTPServerRequest? {
        if let failure { throw failure }
        do {
            return try parseNext()
        } catch {
            failure = error
            throw error
        }
    }

    private mutating func parseNext() throws(HTTPRequestParseError) -> HTTPServerRequest? {
        if head == nil {
            guard let scanned = try scanHead() else { return nil }
            head = scanned
        }
        guard var head else { return nil }
        let body: Data
        let end: Int
        if var decoder = head.chunked {
            // Decoded bytes leave the buffer at once, so framing never piles up.
            let used: Int
            do {
                used = try decoder.decode(buffer[head.bodyStart...], into: &head.decoded)
            } catch {
                throw error.isTooLarge ? .chunkedBodyTooLarge(limit: limits.maxBodyBytes) : .invalidChunkedBody(error.description)
            }
            buffer.removeSubrange(head.bodyStart..<(head.bodyStart + used))
            head.chunked = decoder
            self.head = head
            guard decoder.isDone else { return nil }
            body = Data(head.decoded)
            end = head.bodyStart
        } else {
            guard buffer.count - head.bodyStart >= head.contentLength else { return nil }
            end = head.bodyStart + head.contentLength
            body = Data(buffer[head.bodyStart..<end])
        }
        let request = HTTPServerRequest(method: head.method, target: head.target, version: head.version, headers: head.headers, body: body)
        buffer.removeSubrange(0..<end)
        scanIndex = 0
        lineStart = 0
        lines.removeAll(keepingCapacity: true)
        self.head = nil
        return request
    }

    /// Finds the lines of the head, failing as soon as a byte makes it invalid, and parses
    /// them once the blank line arrives.
    private mutating func scanHead() throws(HTTPRequestParseError) -> Head? {
        while scanIndex < buffer.count {
            let byte = buffer[scanIndex]
            let previousIsCR = scanIndex > lineStart && buffer[scanIndex - 1] == HTTPSyntax.cr
            if byte == HTTPSyntax.lf {
                guard previousIsCR else { throw bareLineBreakError(at: scanIndex) }
                let line = lineStart..<(scanIndex - 1)
                scanIndex += 1
                lineStart = scanIndex
                if line.isEmpty && !lines.isEmpty {
                    return try parseHead(bodyStart: scanIndex)
                }
                if !line.isEmpty { lines.append(line) }
            } else {
                if previousIsCR { throw bareLineBreakError(at: scanIndex - 1) }
                scanIndex += 1
            }
            // Not complete yet: the blank line still needs at least one more byte.
            if scanIndex >= limits.maxHeaderBytes { throw .headersTooLarge(limit: limits.maxHeaderBytes) }
        }
        return nil
    }

    private func bareLineBreakError(at position: Int) -> HTTPRequestParseError {
        let name = buffer[position] == HTTPSyntax.cr ? "CR" : "LF"
        guard !lines.isEmpty else {
            return .malformedRequestLine("bare \(name) at offset \(position - lineStart); lines must end with CRLF")
        }
        let lineNumber = lines.count + 1
        do {
            _ = try Self.parseHeaderLine(buffer[lineStart...position], line: lineNumber)
        } catch {
            return error
        }
        return .invalidHeaderLine(line: lineNumber, reason: "bare \(name); lines must end with CRLF")
    }

    private func parseHead(bodyStart: Int) throws(HTTPRequestParseError) -> Head {
        let (method, target, version) = try Self.parseRequestLine(buffer[lines[0]])
        var headers: [HTTPServerHeader] = []
        headers.reserveCapacity(lines.count - 1)
        for (index, range) in lines.enumerated().dropFirst() {
            headers.append(try Self.parseHeaderLine(buffer[range], line: index + 1))
        }

        let hostCount = headers.count(where: { $0.hasName("Host") })
        if hostCount > 1 { throw .multipleHosts(count: hostCount) }
        if hostCount == 0 && version == .http1_1 { throw .missingHost }
        let chunked = try isChunked(headers, version: version)
        let contentLength = chunked ? 0 : try contentLength(of: headers)
        var expectsContinue = false
        for expectation in headers where expectation.hasName("Expect") {
            guard expectation.value.lowercased() == "100-continue" else {
                throw .unsupportedExpectation(HTTPSyntax.visible(expectation.value.utf8))
            }
            expectsContinue = contentLength > 0 || chunked
        }
        return Head(
            method: method, target: target, version: version, headers: headers,
            contentLength: contentLength, expectsContinue: expectsContinue, bodyStart: bodyStart,
            chunked: chunked ? ChunkedDecoder(limit: limits.maxBodyBytes) : nil
        )
    }

    /// Whether the body is chunked: Transfer-Encoding must be exactly `chunked`, in
    /// HTTP/1.1, without Content-Length; anything else is refused, a field with no coding
    /// at all included (empty list elements are passed over, RFC 9110 §5.6.1).
    private func isChunked(_ headers: [HTTPServerHeader], version: HTTPServerRequest.Version) throws(HTTPRequestParseError) -> Bool {
        let fields = headers.filter { $0.hasName("Transfer-Encoding") }
        guard !fields.isEmpty else { return false }
        let codings = fields.flatMap { $0.value.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard codings.count == 1, codings[0].lowercased() == "chunked" else {
            throw .transferEncodingNotSupported(HTTPSyntax.visible(codings.joined(separator: ", ").utf8))
        }
        if version == .http1_0 { throw .ambiguousFraming("Transfer-Encoding in an HTTP/1.0 request") }
        if headers.contains(where: { $0.hasName("Content-Length") }) { throw .ambiguousFraming("both Transfer-Encoding and Content-Length") }
        return true
    }

    /// Content-Length per RFC 9110 §8.6: absent means 0; repeated fields or a list are
    /// accepted only when every value is the same number.
    private func contentLength(of headers: [HTTPServerHeader]) throws(HTTPRequestParseError) -> Int {
        let values = headers.filter { $0.hasName("Content-Length") }.map(\.value)
        var agreed: String?
        for value in values {
            for element in value.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
                let digits = Self.trimmingWhitespace(element)
                guard !digits.isEmpty, digits.allSatisfy({ (0x30...0x39).contains($0) }) else {
                    throw .invalidContentLength(HTTPSyntax.visible(value.utf8))
                }
                let significant = digits.drop { $0 == 0x30 }
                let number = significant.isEmpty ? "0" : String(decoding: significant, as: UTF8.self)
                if let agreed, agreed != number {
                    throw .conflictingContentLength(values.map { HTTPSyntax.visible($0.utf8) })
                }
                agreed = number
            }
        }
        guard let agreed else { return 0 }
        // More than 18 digits cannot fit an Int and is far beyond any sane limit anyway.
        guard agreed.utf8.count <= 18, let length = Int(agreed), length <= limits.maxBodyBytes else {
            throw .bodyTooLarge(contentLength: agreed, limit: limits.maxBodyBytes)
        }
        return length
    }

    private static func parseRequestLine(
        _ line: ArraySlice<UInt8>
    ) throws(HTTPRequestParseError) -> (String, String, HTTPServerRequest.Version) {
        let parts = line.split(separator: HTTPSyntax.space, omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw .malformedRequestLine(
                "\"\(HTTPSyntax.visible(line))\" is not method, target and version separated by single spaces"
            )
        }
        let (method, target, version) = (parts[0], parts[1], parts[2])
        guard HTTPSyntax.isToken(method) else {
            throw .malformedRequestLine("method \"\(HTTPSyntax.visible(method))\" is not a token")
        }
        guard !target.isEmpty else { throw .malformedRequestLine("the request target is empty") }
        if let bad = target.firstIndex(where: { !(0x21...0x7E).contains($0) }) {
            throw .malformedRequestLine(
                "request target \"\(HTTPSyntax.visible(target))\" has \(HTTPSyntax.describe(target[bad])) "
                    + "at offset \(bad - target.startIndex)"
            )
        }
        return (
            String(decoding: method, as: UTF8.self),
            String(decoding: target, as: UTF8.self),
            try parseVersion(version)
        )
    }

    private static func parseVersion(_ bytes: ArraySlice<UInt8>) throws(HTTPRequestParseError) -> HTTPServerRequest.Version {
        let text = String(decoding: bytes, as: UTF8.self)
        if let version = HTTPServerRequest.Version(rawValue: text) { return version }
        let digits: ClosedRange<UInt8> = 0x30...0x39
        let isVersion = bytes.count == 8 && bytes.starts(with: Array("HTTP/".utf8))
            && digits.contains(bytes[bytes.startIndex + 5])
            && bytes[bytes.startIndex + 6] == UInt8(ascii: ".")
            && digits.contains(bytes[bytes.startIndex + 7])
        guard isVersion else {
            throw .malformedRequestLine("\"\(HTTPSyntax.visible(bytes))\" is not an HTTP version")
        }
        throw .unsupportedVersion(text)
    }

    /// `field-name ":" OWS field-value OWS` (RFC 9112 §5).
    static func parseHeaderLine(_ line: ArraySlice<UInt8>, line number: Int) throws(HTTPRequestParseError) -> HTTPServerHeader {
        if let first = line.first, HTTPSyntax.isWhitespace(first) {
            throw .invalidHeaderLine(line: number, reason: "starts with whitespace (obsolete line folding is not accepted)")
        }
        guard let colon = line.firstIndex(of: HTTPSyntax.colon) else {
            throw .invalidHeaderLine(line: number, reason: "\"\(HTTPSyntax.visible(line))\" has no colon")
        }
        let name = line[..<colon]
        guard !name.isEmpty else { throw .invalidHeaderLine(line: number, reason: "the header name is empty") }
        if let bad = name.firstIndex(where: { !HTTPSyntax.isTokenByte($0) }) {
            throw .invalidHeaderName(name: HTTPSyntax.visible(name), byte: name[bad], offset: bad - name.startIndex)
        }
        let nameText = String(decoding: name, as: UTF8.self)
        let value = trimmingWhitespace(line[(colon + 1)...])
        if let bad = value.firstIndex(where: { $0 == HTTPSyntax.cr || $0 == HTTPSyntax.lf || $0 == 0 }) {
            throw .invalidHeaderValue(name: nameText, byte: value[bad], offset: bad - value.startIndex)
        }
        guard let valueText = String(validating: value, as: UTF8.self) else {
            throw .headerValueNotUTF8(name: nameText)
        }
        return HTTPServerHeader(name: nameText, value: valueText)
    }

    private static func trimmingWhitespace<C: BidirectionalCollection<UInt8>>(_ bytes: C) -> C.SubSequence {
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, HTTPSyntax.isWhitespace(bytes[start]) { bytes.formIndex(after: &start) }
        while start < end, HTTPSyntax.isWhitespace(bytes[bytes.index(before: end)]) { bytes.formIndex(before: &end) }
        return bytes[start..<end]
    }
}
