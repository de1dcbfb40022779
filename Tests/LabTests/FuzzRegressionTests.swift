import ChainKit
import Foundation
import HTTPServer
import Lab
import Outbound
import Testing
import Vocabulary

/// Inputs that fuzz/targets/FuzzScenario.swift found breaking the scenario decoder, kept so
/// they stay fixed. Each test names the crash file libFuzzer wrote.
@Suite("Scenario decoder fuzz regressions")
struct ScenarioFuzzRegressionTests {
    func decodeError(_ data: Data) -> ScenarioError? {
        do {
            _ = try ScenarioCodec.decode(data)
            return nil
        } catch {
            return error
        }
    }

    @Test("crash-292b05e9: an unknown key's control characters appear escaped in the error")
    func unknownKeyWithControlCharacters() throws {
        let crash = try #require(Data(base64Encoded: "eyJuYW2T3cXCh93T3W9wZXJhdGlvbnMiOlt7Im5hbWUiOiJIZXJvUXVlcnkifV0sImNoYWluIjpbeyJpbnRlcmNlcHRvciI6Ik1heFJldHJ5SW50ZXJjZXB0b3IiLCJtYXhSZXRyaWVzIjotMX0seyJpbnRlcmNlcHRvciI6IkZvbyJ9XX0K"))
        let error = try #require(decodeError(crash))
        #expect(!error.description.unicodeScalars.contains(where: VisibleEscapes.isUnsafe))
        #expect(error.path == "nam\u{FFFD}\u{FFFD}\u{FFFD}\\x87\u{FFFD}\u{FFFD}\u{FFFD}operations")

        let nested = Data(#"{"name":"x","operations":[{"name":"HeroQuery"}],"chain":[],"backend":{"\u001b]2;PWNED\u0007":true}}"#.utf8)
        #expect(decodeError(nested)?.description == #"backend.\e]2;PWNED\x07: unknown key; known: tokenTTL, authFailureMode, requireAuth, rotateRefreshTokens, reuseDetection, serverErrorStatus, failNext, failNextStatus, latency, hostile, omitsHeroName"#)
    }

    @Test("crash-b0305abb: a scenario file with an invalid escape is refused with a printable message")
    func invalidEscapeInScenarioFile() throws {
        let crash = try #require(Data(base64Encoded: "eyJuYW1lIjoicmVzdCIsImNoYWluIjpbeyJtaWRkbGV3YXJlIjoiQXV0aGVudGljYXRpb25NaWRkbGV3YXJlIiwiYXV0aG9yaXphdGlvbiI6IkJlYXJlciB4In1dLCJvcGVyYXRpb25zIjpbeyJuYW1lIjoiZ2V0SGVybyIsIm1ldGhvZCI6IkdFVCIsInBhdGgiOiIvaGVyb2VzLzIwMDEiLCJ2YXJpYWJsZXMiOnsiaWQiOiIyMDAxIiwibiI6MS41ZS03LCJkZWVwIjpbdHJ1ZSxudWxsLHsiayI6Ilx1MDBlOVyGm8fMZFx1ZGUwMCJ9XX19XSwibGF1bmNoIjpbMCwwXSwic2NyaXB0IjpbeyJyZXF1ZXN0dGlvbk1pZGRsZXdhcmUiLCJhdXRob3JpemF0aW9ueyJuYW1lIjoicmVzdCIsImNoYWluIjpbeyJtaWRkbGV3YXJlIjoiQXV0aGVudGljYXRpb25NaWRkbGV3YXJlIiwiYXV0aG9yaXphdGlvbiI6IkJlYXJlciB4In1dLCJvcGVyYXRpb25zIjpbeyJuYXV0bzoiZ2V0SGVybyIsIm1ldGhvZCI6IkdFVCIsInBhdGgiOiIvaGVyb2VzLzIwMDEiLCJ2YXJpYWJsZXMiOnsiaWQiOiIyMDAxIiwibiI6MS41ZS03LCJkZWVwIjpbdHJ1ZSxudWxsLHsiayI6Ilx1MDBlIjoiQmVhcmVyIHgifV0sIm9wZXJhdGlvbnMiOlt7Im5hbWUiOiJnZXRIZXJvIiwibWV0aG9kIjoiR0VUIiwicGF0aCI6Ii9oZXJvZXMvMjAwMSIsInZhcmlhYmxlLCJsYXRlbmN5IjowLjI1LCJob3N0aWxlIjp0cnVlfSwidG9rZW4iOiJub25lIiwicmVmcmVzaFN0cmF0ZWd5IjoibmFpdmUiLCJzYWZldHlDYXAiOjMsInByZWZpbGxDYWNoZSI6ZmFsc2V9Cg=="))
        #expect(decodeError(crash)?.description == #"not valid JSON at line 1, column 230: invalid escape '\' followed by byte 0x86 in string"#)
    }

    static let minimal = #""name":"x","chain":[],"operations":[{"name":"HeroQuery"}]"#

    @Test("a request id or hop beyond Int in a script is refused, not a crash converting it to Int")
    func hugeNumbersInScript() {
        #expect(decodeError(Data(#"{\#(Self.minimal),"script":[1e300]}"#.utf8))?.description
            == "script[0]: expected a request id from 1 to 1000")
        #expect(decodeError(Data(#"{\#(Self.minimal),"script":[{"request":1,"until":{"hop":1e19,"position":"pre"}}]}"#.utf8))?.description
            == #"script[0].until: expected "refresh" or {"hop": N, "position": "pre"|"post"}"#)
    }

    @Test("a recording with a request id or hop beyond Int is refused, not a crash converting it to Int")
    func hugeNumbersInRecording() {
        func error(_ command: String) -> String? {
            let json = #"{"format":"chainlab-recording","version":1,"scenario":"basics","commands":[\#(command)]}"#
            do {
                _ = try Recording(json: Data(json.utf8))
                return nil
            } catch {
                return error.description
            }
        }
        #expect(error(#"{"command":"step","request":1e300}"#) == "recording at commands[0].request: expected a whole number from 1 to 10000")
        #expect(error(#"{"command":"pass","request":1,"at":{"hop":1e19,"position":"pre"}}"#)
            == #"recording at commands[0].at: expected "launch", "wake", "refresh" or {"hop": N, "position": "pre"|"post"} with N from 0 to 258"#)
    }

    @Test("crash-3c805fc4: a variable beyond Double's range is refused, so every decoded scenario encodes back to JSON")
    func variableBeyondDoubleRange() throws {
        #expect(decodeError(Data(#"{"name":"x","chain":[],"operations":[{"name":"HeroQuery","variables":{"n":1e999}}]}"#.utf8))?.description
            == "not valid JSON at line 1, column 75: number out of range")
        let scenario = try ScenarioCodec.decode(Data(#"{"name":"x","chain":[],"operations":[{"name":"HeroQuery","variables":{"n":1e308}}]}"#.utf8))
        #expect(try ScenarioCodec.decode(Data(ScenarioCodec.encode(scenario).utf8)) == scenario)
    }
}

/// Answers that broke the plain-HTTP client's reader (fuzz/targets/FuzzHTTPAnswer.swift,
/// formerly the IPv6-literal client's): hostile sizes and statuses are errors, never traps.
@Suite("Plain-HTTP answer reader")
struct HTTPAnswerReaderTests {
    struct Answer: Equatable {
        var status: Int
        var fields: [String]
        var body: Data
    }

    static let url = "http://[::1]:4000/graphql"

    func read(_ text: String, limit: Int = 1 << 20) -> Result<Answer, RemoteFailure> {
        read(Array(text.utf8), pieceSize: text.utf8.count, limit: limit)
    }

    func read(_ bytes: [UInt8], pieceSize: Int, limit: Int = 1 << 20) -> Result<Answer, RemoteFailure> {
        let pieces = stride(from: 0, to: bytes.count, by: max(1, pieceSize)).map { Array(bytes[$0..<min($0 + pieceSize, bytes.count)]) }
        return Result { () throws(RemoteFailure) -> Answer in
            let (head, body) = try PlainHTTPExchange.readAnswer(
                on: .replaying(pieces), method: "GET", limit: limit, url: Self.url, timeout: 30)
            var bytes = Data()
            while let piece = try body.next() { bytes.append(piece) }
            return Answer(status: head.status.code, fields: head.headerFields.map { "\($0.name): \($0.value)" }, body: bytes)
        }
    }

    func notHTTP(_ reason: String) -> Result<Answer, RemoteFailure> {
        .failure(RemoteFailure(url: Self.url, cause: .other("the answer is not valid HTTP/1.1: \(reason)")))
    }

    @Test("a chunk size of 7fffffffffffffff, or one with a sign, after a first chunk is refused, not an overflow")
    func hugeChunkSize() {
        #expect(read("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n7fffffffffffffff\r\n")
            == notHTTP("chunk size \"7fffffffffffffff\" is not a hexadecimal number"))
        #expect(read("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n+5\r\nhello\r\n0\r\n\r\n")
            == notHTTP("chunk size \"+5\" is not a hexadecimal number"))
    }

    @Test(arguments: ["-200", "099", "600", "2000", "+20", "abc"])
    func statusesOutside100To599AreRefused(status: String) {
        #expect(read("HTTP/1.1 \(status) OK\r\nContent-Length: 0\r\n\r\n")
            == notHTTP("the status \"\(status)\" is not a number from 100 to 599"))
    }

    @Test("a body read to the end of the connection stops at the limit, even when it arrived with the head; repeated fields stay apart")
    func bodyToTheEndIsBounded() throws {
        #expect(read("HTTP/1.1 200 OK\r\n\r\n0123456789abcdefX", limit: 16)
            == .failure(RemoteFailure(url: Self.url, cause: .tooLarge(limit: 16, announced: nil))))
        #expect(read("HTTP/1.1 201 Created\r\nContent-Length: 5\r\nX-A: 1\r\nX-A: 2\r\n\r\nhello")
            == .success(Answer(status: 201, fields: ["Content-Length: 5", "X-A: 1", "X-A: 2"], body: Data("hello".utf8))))
    }

    @Test("crash-51a0196c: a field spelled twice in two cases is one field with two values, and two lengths are refused")
    func oneFieldInTwoSpellings() throws {
        #expect(read("HTTP/1.1 200 OK\r\nContent-LengTh: 5\r\nContent-Length: 0\r\n\r\nhello")
            == notHTTP("Content-Length \"0, 5\" is not one decimal number"))
        #expect(read("HTTP/1.1 200 OK\r\nx-a: 1\r\nX-A: 2\r\nContent-Length: 0\r\n\r\n")
            == .success(Answer(status: 200, fields: ["x-a: 1", "X-A: 2", "Content-Length: 0"], body: Data())))
    }

    @Test("an announced Content-Length over the limit is refused before the body is read")
    func anAnnouncedLengthOverTheLimitIsRefused() {
        #expect(read("HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n", limit: 16)
            == .failure(RemoteFailure(url: Self.url, cause: .tooLarge(limit: 16, announced: 99_999_999_999))))
    }

    @Test("crash-7ad60551: deflate data that breaks in a chunk whose framing breaks after it fails alike, whole or in pieces")
    func aBrokenChunkAfterBrokenDataFailsAlike() {
        let answer = Array("HTTP/1.1 200 OK\r\nContent-Encoding: deflate\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
            + Array("7\r\n".utf8) + [0x78, 0x9C, 0xAB, 0x56, 0x4A, 0x49, 0x2C] + Array("\r\n7\r\n1 200 OK\r\n0\r\n\r\n".utf8)
        let expected = Result<Answer, RemoteFailure>.failure(
            RemoteFailure(url: Self.url, cause: .other("the deflate-compressed answer is not valid: invalid distance too far back")))
        #expect(read(answer, pieceSize: answer.count) == expected)
        #expect(read(answer, pieceSize: 5) == expected)
    }
}
