import Foundation
import Testing
import TestSupport

@testable import HTTPServer

@Suite("HTTPRequestParser")
struct HTTPRequestParserTests {
    /// Feeds `text` at once and returns what the first `nextRequest()` gives.
    private func parse(_ text: String, limits: HTTPRequestLimits = HTTPRequestLimits()) throws(HTTPRequestParseError) -> HTTPServerRequest? {
        var parser = HTTPRequestParser(limits: limits)
        parser.append(Array(text.utf8))
        return try parser.nextRequest()
    }

    private func error(_ text: String, limits: HTTPRequestLimits = HTTPRequestLimits()) -> HTTPRequestParseError? {
        do {
            _ = try parse(text, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    @Test func parsesAGetWithOrderedCasePreservingHeaders() throws {
        let request = try parse("GET /hero?id=1 HTTP/1.1\r\nHost: localhost:8080\r\nx-Trace:  a b \t\r\nAccept: */*\r\nX-TRACE: c\r\n\r\n")
        #expect(request == HTTPServerRequest(
            method: "GET",
            target: "/hero?id=1",
            version: .http1_1,
            headers: [
                HTTPServerHeader(name: "Host", value: "localhost:8080"),
                HTTPServerHeader(name: "x-Trace", value: "a b"),
                HTTPServerHeader(name: "Accept", value: "*/*"),
                HTTPServerHeader(name: "X-TRACE", value: "c"),
            ],
            body: Data()
        ))
        #expect(request?.value(forHeader: "x-trace") == "a b, c")
        #expect(request?.allowsKeepAlive == true)
    }

    @Test func parsesAPostBodyAndLeavesPipelinedBytesForTheNextRequest() throws {
        var parser = HTTPRequestParser()
        parser.append(Array("POST /graphql HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhelloGET /next HTTP/1.0\r\n\r\nPOST".utf8))
        let first = try parser.nextRequest()
        #expect(first?.method == "POST")
        #expect(first?.body == Data("hello".utf8))
        let second = try parser.nextRequest()
        #expect(second == HTTPServerRequest(method: "GET", target: "/next", version: .http1_0))
        #expect(second?.allowsKeepAlive == false)
        #expect(try parser.nextRequest() == nil)
        #expect(parser.progress == .head)
        #expect(parser.bufferedByteCount == 4)
    }

    @Test func parsesInputFedOneByteAtATime() throws {
        let wire = "\r\nPUT /items/7 HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\nabcGET / HTTP/1.1\r\nHost: b\r\n\r\n"
        var parser = HTTPRequestParser()
        var requests: [HTTPServerRequest] = []
        var progressSeen: [HTTPRequestParser.Progress] = []
        for byte in wire.utf8 {
            parser.append([byte])
            while let request = try parser.nextRequest() { requests.append(request) }
            if progressSeen.last != parser.progress { progressSeen.append(parser.progress) }
        }
        #expect(requests == [
            HTTPServerRequest(
                method: "PUT", target: "/items/7",
                headers: [
                    HTTPServerHeader(name: "Host", value: "a"),
                    HTTPServerHeader(name: "Expect", value: "100-continue"),
                    HTTPServerHeader(name: "Content-Length", value: "3"),
                ],
                body: Data("abc".utf8)
            ),
            HTTPServerRequest(method: "GET", target: "/", headers: [HTTPServerHeader(name: "Host", value: "b")]),
        ])
        #expect(progressSeen == [.head, .body(expectsContinue: true), .idle, .head, .idle])
    }

    @Test func errorsAreReportedWhenFedByteByByteToo() {
        var parser = HTTPRequestParser()
        var thrown: HTTPRequestParseError?
        for byte in "GET / HTTP/1.1\r\nHost: a\r\nBad Name: x\r\n\r\n".utf8 where thrown == nil {
            parser.append([byte])
            do { _ = try parser.nextRequest() } catch { thrown = error }
        }
        #expect(thrown == .invalidHeaderName(name: "Bad Name", byte: 0x20, offset: 3))
    }

    @Test func anErrorIsFinal() {
        var parser = HTTPRequestParser()
        parser.append(Array("BAD\r\n\r\n".utf8))
        let first = Result { try parser.nextRequest() }
        parser.append(Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
        let second = Result { try parser.nextRequest() }
        let expected = HTTPRequestParseError.malformedRequestLine(
            "\"BAD\" is not method, target and version separated by single spaces"
        )
        #expect(throws: expected) { try first.get() }
        #expect(throws: expected) { try second.get() }
    }

    @Test func malformedRequestLines() {
        #expect(error("GET  / HTTP/1.1\r\n\r\n") == .malformedRequestLine(
            "\"GET  / HTTP/1.1\" is not method, target and version separated by single spaces"))
        #expect(error("G(T / HTTP/1.1\r\nHost: a\r\n\r\n") == .malformedRequestLine("method \"G(T\" is not a token"))
        #expect(error("GET /a\u{7F}b HTTP/1.1\r\nHost: a\r\n\r\n") == .malformedRequestLine(
            "request target \"/a\\x7Fb\" has byte 0x7F at offset 2"))
        #expect(error("GET / HTTP/1.1\0\r\nHost: a\r\n\r\n") == .malformedRequestLine("\"HTTP/1.1\\x00\" is not an HTTP version"))
        #expect(error("GET / http/1.1\r\nHost: a\r\n\r\n") == .malformedRequestLine("\"http/1.1\" is not an HTTP version"))
        #expect(error("GET / HTTP/1.1\nHost: a\n\n") == .malformedRequestLine("bare LF at offset 14; lines must end with CRLF"))
        #expect(error("GET / HTTP/1.1\rHost: a\r\n\r\n") == .malformedRequestLine("bare CR at offset 14; lines must end with CRLF"))
    }

    @Test func otherVersionsAre505() {
        let failure = error("GET / HTTP/2.0\r\nHost: a\r\n\r\n")
        #expect(failure == .unsupportedVersion("HTTP/2.0"))
        #expect(failure?.status == 505)
    }

    @Test func badHeaderLines() {
        #expect(error("GET / HTTP/1.1\r\nHost: a\r\nNoColonHere\r\n\r\n") == .invalidHeaderLine(
            line: 3, reason: "\"NoColonHere\" has no colon"))
        #expect(error("GET / HTTP/1.1\r\nHost: a\r\nX-A: 1\r\n  folded\r\n\r\n") == .invalidHeaderLine(
            line: 4, reason: "starts with whitespace (obsolete line folding is not accepted)"))
        #expect(error("GET / HTTP/1.1\r\nHost: a\r\n: empty\r\n\r\n") == .invalidHeaderLine(
            line: 3, reason: "the header name is empty"))
        #expect(error("GET / HTTP/1.1\r\nHost: a\r\nX-A\n\r\n") == .invalidHeaderLine(
            line: 3, reason: "\"X-A\\n\" has no colon"))
        #expect(error("GET / HTTP/1.1\r\nHost: a\r\nX-A: 1\r\n\r\n") == nil)
    }

    @Test func invalidHeaderNamesFollowTokenRules() {
        #expect(error("GET / HTTP/1.1\r\nHost: a\r\nX-A : 1\r\n\r\n") == .invalidHeaderName(name: "X-A ", byte: 0x20, offset: 3))
        #expect(error("GET / HTTP/1.1\r\nHost: a\r\nX(A): 1\r\n\r\n") == .invalidHeaderName(name: "X(A)", byte: 0x28, offset: 1))
        #expect(error("GET / HTTP/1.1\r\nHost: a\r\nX\u{0}A: 1\r\n\r\n") == .invalidHeaderName(name: "X\\x00A", byte: 0, offset: 1))
        #expect(error("GET / HTTP/1.1\r\nHost: a\r\nCafé: 1\r\n\r\n") == .invalidHeaderName(name: "Caf\\xC3\\xA9", byte: 0xC3, offset: 3))
        #expect(error("GET / HTTP/1.1\r\nHost: a\r\nX-!#$%&'*+.^_`|~: 1\r\n\r\n") == nil)
    }

    @Test func controlBytesInHeaderValues() {
        #expect(error("GET / HTTP/1.1\r\nHost: a\r\nX-A: a\u{0}b\r\n\r\n") == .invalidHeaderValue(name: "X-A", byte: 0, offset: 1))
        #expect(error("GET / HTTP/1.1\r\nHost: a\r\nX-A: ab\rc\r\n\r\n") == .invalidHeaderValue(name: "X-A", byte: 0x0D, offset: 2))
        #expect(error("GET / HTTP/1.1\r\nHost: a\r\nX-A: abc\nX-B: 1\r\n\r\n") == .invalidHeaderValue(name: "X-A", byte: 0x0A, offset: 3))
        var parser = HTTPRequestParser()
        parser.append([0x47, 0x45, 0x54, 0x20, 0x2F, 0x20] + Array("HTTP/1.1\r\nHost: a\r\nX-A: ".utf8) + [0xFF, 0x0D, 0x0A, 0x0D, 0x0A])
        #expect(throws: HTTPRequestParseError.headerValueNotUTF8(name: "X-A")) { try parser.nextRequest() }
    }

    @Test func hostIsRequiredOnceForHTTP11() {
        #expect(error("GET / HTTP/1.1\r\n\r\n") == .missingHost)
        #expect(error("GET / HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n") == .multipleHosts(count: 2))
        #expect(error("GET / HTTP/1.0\r\n\r\n") == nil)
    }

    @Test func contentLengthMustBeOneDecimalNumber() throws {
        #expect(error("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 12a\r\n\r\n") == .invalidContentLength("12a"))
        #expect(error("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n") == .invalidContentLength("-1"))
        #expect(error("POST / HTTP/1.1\r\nHost: a\r\nContent-Length:\r\n\r\n") == .invalidContentLength(""))
        #expect(error("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3,\r\n\r\n") == .invalidContentLength("3,"))
        #expect(error("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n")
            == .conflictingContentLength(["3", "4"]))
        #expect(error("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3, 5\r\n\r\n") == .conflictingContentLength(["3, 5"]))
        let agreeing = try parse("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3, 03\r\ncontent-length: 3\r\n\r\nabc")
        #expect(agreeing?.body == Data("abc".utf8))
        #expect(error("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n\r\nabc") == nil)
    }

    @Test func otherTransferCodingsAre501() throws {
        let failure = error("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n")
        #expect(failure == .transferEncodingNotSupported("gzip, chunked"))
        #expect(failure?.status == 501)
        #expect(failure?.description == "Transfer-Encoding \"gzip, chunked\" is not supported; send the body with Content-Length or Transfer-Encoding: chunked")
        // An empty value names no coding and frames nothing: refused, in HTTP/1.0 too
        // (found by FuzzHTTPParser; the input is in its corpus as empty-transfer-encoding).
        #expect(error("POST / HTTP/1.0\r\nHost: a\r\nTransfer-Encoding:\r\n\r\n") == .transferEncodingNotSupported(""))
        #expect(error("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: ,\r\n\r\n") == .transferEncodingNotSupported(""))
        // Empty list elements beside a coding are passed over (RFC 9110 §5.6.1).
        #expect(try parse("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked,\r\n\r\n3\r\nabc\r\n0\r\n\r\n")?.body == Data("abc".utf8))
    }

    @Test func aChunkedBodyIsDecodedFedOneByteAtATimeAndTheNextRequestFollows() throws {
        let wire = "POST /up HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;name=x\r\nhello\r\nB\r\n, chunked!!\r\n0\r\nX-Trailer: t\r\n\r\nGET /next HTTP/1.1\r\nHost: a\r\n\r\n"
        var parser = HTTPRequestParser()
        var requests: [HTTPServerRequest] = []
        for byte in wire.utf8 {
            parser.append([byte])
            while let request = try parser.nextRequest() { requests.append(request) }
        }
        #expect(requests.map(\.target) == ["/up", "/next"])
        #expect(String(decoding: requests[0].body, as: UTF8.self) == "hello, chunked!!")
        #expect(requests[0].headers.map(\.name) == ["Host", "Transfer-Encoding"])
        #expect(parser.bufferedByteCount == 0)
    }

    @Test func ambiguousOrMalformedChunkedBodiesAreRefused() {
        #expect(error("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n")
            == .ambiguousFraming("both Transfer-Encoding and Content-Length"))
        #expect(error("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n") == .ambiguousFraming("Transfer-Encoding in an HTTP/1.0 request"))
        let badSize = error("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
        #expect(badSize == .invalidChunkedBody("chunk size \"zz\" is not a hexadecimal number"))
        #expect(badSize?.status == 400)
        #expect(error("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n")
            == .invalidChunkedBody("a chunk's data is longer than its size"))
        let tooLarge = error("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n", limits: HTTPRequestLimits(maxBodyBytes: 5))
        #expect(tooLarge == .chunkedBodyTooLarge(limit: 5))
        #expect(tooLarge?.status == 413)
    }

    /// Found by FuzzHTTPParser: a chunk over the limit whose data then runs past its size got
    /// "too large" when its bytes came one by one and "data longer than its size" when they
    /// came at once. The size line alone now decides.
    @Test func aChunkOverTheLimitIsRefusedAtItsSizeHoweverItsBytesArrive() {
        let text = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1e\r\n" + String(repeating: "x", count: 31) + "\r\n0\r\n\r\n"
        let limits = HTTPRequestLimits(maxBodyBytes: 24)
        #expect(error(text, limits: limits) == .chunkedBodyTooLarge(limit: 24))
        var parser = HTTPRequestParser(limits: limits)
        var bytewise: HTTPRequestParseError?
        for byte in text.utf8 where bytewise == nil {
            parser.append([byte][...])
            do { _ = try parser.nextRequest() } catch { bytewise = error }
        }
        #expect(bytewise == .chunkedBodyTooLarge(limit: 24))
        #expect(bytewise?.description == "the chunked body is larger than the 24-byte limit")
    }

    @Test func unknownExpectationIs417() {
        let failure = error("POST / HTTP/1.1\r\nHost: a\r\nExpect: magic\r\nContent-Length: 1\r\n\r\n")
        #expect(failure == .unsupportedExpectation("magic"))
        #expect(failure?.status == 417)
    }

    @Test func headersOverTheLimitAre431() throws {
        let limits = HTTPRequestLimits(maxHeaderBytes: 32)
        #expect(try parse("GET / HTTP/1.1\r\nHost: abcdef\r\n\r\n", limits: limits)?.target == "/")
        let failure = error("GET / HTTP/1.1\r\nHost: abcdefg\r\n\r\n", limits: limits)
        #expect(failure == .headersTooLarge(limit: 32))
        #expect(failure?.status == 431)
        // An endless head is refused as soon as the limit is reached, not when it ends.
        var parser = HTTPRequestParser(limits: limits)
        parser.append(Array("GET / HTTP/1.1\r\nX-Long: ".utf8) + Array(repeating: UInt8(ascii: "a"), count: 7))
        #expect(try parser.nextRequest() == nil)
        parser.append([UInt8(ascii: "a")])
        #expect(throws: HTTPRequestParseError.headersTooLarge(limit: 32)) { try parser.nextRequest() }
        // Empty lines before the request line count too.
        #expect(error(String(repeating: "\r\n", count: 16), limits: limits) == .headersTooLarge(limit: 32))
    }

    @Test func bodiesOverTheLimitAre413BeforeTheBodyArrives() {
        let limits = HTTPRequestLimits(maxBodyBytes: 10)
        let failure = error("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\n", limits: limits)
        #expect(failure == .bodyTooLarge(contentLength: "11", limit: 10))
        #expect(failure?.status == 413)
        #expect(failure?.description == "a body of 11 bytes is larger than the 10-byte limit")
        #expect(error("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0099999999999999999999999\r\n\r\n", limits: limits)
            == .bodyTooLarge(contentLength: "99999999999999999999999", limit: 10))
        #expect(error("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n0123456789", limits: limits) == nil)
    }

    @Test func connectionCloseAndHTTP10EndKeepAlive() throws {
        #expect(try parse("GET / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive, Close\r\n\r\n")?.allowsKeepAlive == false)
        #expect(try parse("GET / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive\r\n\r\n")?.allowsKeepAlive == true)
        #expect(try parse("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")?.allowsKeepAlive == false)
    }

    /// Mutated requests fed in random pieces must give exactly what they give fed whole:
    /// how bytes are split never changes the outcome, and nothing traps on the way.
    @Test func splittingNeverChangesTheOutcomeOfMutatedInput() {
        let valid = Array((
            "POST /graphql HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nX-A: 1\r\n\r\nbody"
                + "GET /b HTTP/1.1\r\nHost: b\r\nExpect: 100-continue\r\n\r\n"
        ).utf8)
        let interesting = Array("\r\n :\t,0123456789".utf8) + [0, 0x7F, 0xFF, 0xC3]
        var generator = SplitMix(seed: 0x5EED)
        var tally = (clean: 0, failed: 0)
        for _ in 0..<3_000 {
            var bytes = valid
            for _ in 0...(generator.next() % 3) {
                let position = Int(generator.next() % UInt64(bytes.count))
                let byte = interesting[Int(generator.next() % UInt64(interesting.count))]
                switch generator.next() % 3 {
                case 0: bytes[position] = byte
                case 1: bytes.insert(byte, at: position)
                default: bytes.remove(at: position)
                }
            }
            let limits = HTTPRequestLimits(maxHeaderBytes: 80, maxBodyBytes: 8)
            let whole = Self.outcome(of: [bytes[...]], limits: limits)
            var pieces: [ArraySlice<UInt8>] = []
            var offset = 0
            while offset < bytes.count {
                let end = min(bytes.count, offset + 1 + Int(generator.next() % 12))
                pieces.append(bytes[offset..<end])
                offset = end
            }
            #expect(Self.outcome(of: pieces, limits: limits) == whole)
            if whole.error == nil { tally.clean += 1 } else { tally.failed += 1 }
            for request in whole.requests {
                #expect(request.body.count == Int(request.value(forHeader: "Content-Length") ?? "0") ?? -1)
            }
        }
        #expect(tally.clean > 100)
        #expect(tally.failed > 100)
    }

    private static func outcome(
        of pieces: [ArraySlice<UInt8>], limits: HTTPRequestLimits
    ) -> (requests: [HTTPServerRequest], error: HTTPRequestParseError?) {
        var parser = HTTPRequestParser(limits: limits)
        var requests: [HTTPServerRequest] = []
        for piece in pieces {
            parser.append(piece)
            do {
                while let request = try parser.nextRequest() { requests.append(request) }
            } catch {
                return (requests, error)
            }
        }
        return (requests, nil)
    }
}
