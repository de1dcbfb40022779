import ChainKit
import Foundation
import Testing

@Suite("JSON")
struct JSONTests {
    @Test("parses and re-encodes with sorted keys")
    func roundTrip() throws {
        let value = try JSONValue(parsing: #" {"b": [1, 2.5, -3e2, true, false, null], "a": {"s": "x\"y\\z\u00e9\ud83d\ude00"}} "#)
        #expect(value["a"]?["s"] == "x\"y\\zé😀")
        #expect(value.jsonString == #"{"a":{"s":"x\"y\\zé😀"},"b":[1,2.5,-300,true,false,null]}"#)
        #expect(try JSONValue(parsing: value.jsonString) == value)
    }

    @Test("errors say what is wrong and where", arguments: [
        ("{\"a\": }", "not valid JSON at line 1, column 7: unexpected character '}', expected a value"),
        ("[1,\n 2", "not valid JSON at line 2, column 3: unexpected end of input in array, expected ',' or ']'"),
        ("\"abc", "not valid JSON at line 1, column 1: unterminated string"),
        ("01", "not valid JSON at line 1, column 1: leading zero in number"),
        ("{} x", "not valid JSON at line 1, column 4: unexpected text after the JSON value"),
        ("\"a\u{01}\"", "not valid JSON at line 1, column 3: unescaped control character in string"),
    ])
    func errors(input: String, message: String) {
        #expect(throws: (any Error).self) { try JSONValue(parsing: input) }
        do {
            _ = try JSONValue(parsing: input)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test("nesting deeper than the limit is refused, not a stack overflow")
    func depthLimit() {
        let deep = String(repeating: "[", count: 100_000)
        do {
            _ = try JSONValue(parsing: deep)
            Issue.record("deep input was accepted")
        } catch {
            #expect(error.reason == "nesting deeper than 512 levels")
        }
    }

    @Test("encoding escapes control characters and terminal-unsafe scalars")
    func encodingEscapes() {
        #expect(JSONValue.string("\u{1B}[2J\u{202E}").jsonString == #""\u001b[2J\u202e""#)
    }

    @Test("a string is written whole only when every byte is printable ASCII other than a quote or backslash", arguments: [
        ("query HeroQuery { hero { id } }", #""query HeroQuery { hero { id } }""#),
        (#"say "hi""#, #""say \"hi\"""#),
        (#"C:\dir"#, #""C:\\dir""#),
        ("tab\there", #""tab\there""#),
        ("del\u{7F}", #""del\u007f""#),
        ("café ✓", #""café ✓""#),
        ("", #""""#),
    ])
    func plainStringsWrittenWhole(text: String, expected: String) {
        #expect(JSONValue.string(text).jsonString == expected)
        #expect(JSONValue.object([text: .null]).encoded == Data("{\(expected):null}".utf8))
    }

    @Test("isSmall estimates the encoded size and stops once past the limit")
    func isSmallEstimatesEncodedSize() throws {
        let value = try JSONValue(parsing: Data(#"{"hero":{"name":"R2-D2","friends":["Luke","Han"]}}"#.utf8))
        let encoded = value.encoded.count
        #expect(value.isSmall(limit: encoded + 16))
        #expect(!value.isSmall(limit: encoded / 2))
        let huge = JSONValue.array(Array(repeating: .string(String(repeating: "x", count: 100)), count: 100_000))
        #expect(!huge.isSmall(limit: 4096))
        #expect(JSONValue.string(String(repeating: "y", count: 5000)).isSmall(limit: 4096) == false)
        let response = try ChainResponse(parsing: Data(#"{"data":{"hero":{"name":"R2-D2"}},"errors":[{"message":"partial"}]}"#.utf8), source: .server)
        #expect(response.isSmall(limit: 4096))
        #expect(!response.isSmall(limit: 10))
    }

    @Test("a response read from a body answers isSmall from the body's size until a field changes")
    func parsedResponseIsSmallFromBodySize() throws {
        // 63 bytes of body, mostly whitespace: the compact JSON would be 37.
        let body = Data(#"{ "data" :   { "hero" :   { "name" :   "R2-D2" } }            }"#.utf8)
        #expect(body.count == 63)
        var response = try ChainResponse(parsing: body, source: .server)
        #expect(response.isSmall(limit: 63))
        #expect(!response.isSmall(limit: 62))
        response.source = .cache
        #expect(response.isSmall(limit: 62))
        #expect(!response.isSmall(limit: 20))
    }
}

@Suite("PullStream")
struct PullStreamTests {
    struct Failure: Error, Equatable {}

    @Test("map and compactMap transform lazily, element by element")
    func operators() async throws {
        let pulled = Locked(0)
        let source = PullStream<Int> {
            var next = 0
            return {
                guard next < 5 else { return nil }
                next += 1
                pulled.withLock { $0 += 1 }
                return next
            }
        }
        let stream = source.map { $0 * 10 }.compactMap { $0 % 20 == 0 ? $0 : nil }
        let iterator = stream.makeAsyncIterator()
        #expect(try await iterator.next() == 20)
        #expect(pulled.value == 2)
        #expect(try await stream.collect() == [20, 40])
    }

    /// Counts down from `start`, one fresh iteration per call of `makeIterator`.
    final class Countdown: PullStreamSource, Sendable {
        final class Iteration: PullStreamIterator {
            var left: Int
            init(_ start: Int) { left = start }
            func next() async throws -> Int? {
                guard left > 0 else { return nil }
                defer { left -= 1 }
                return left
            }
        }

        let start: Int
        let iterations = Locked(0)
        init(start: Int) { self.start = start }

        func makeIterator() -> any PullStreamIterator<Int> {
            iterations.withLock { $0 += 1 }
            return Iteration(start)
        }
    }

    @Test("a stream made from a source carries it as its annotation and iterates it afresh each time")
    func sourceStreams() async throws {
        let countdown = Countdown(start: 3)
        let stream = PullStream(source: countdown)
        #expect(stream.annotation === countdown)
        #expect(countdown.iterations.value == 0)
        #expect(try await stream.collect() == [3, 2, 1])
        #expect(try await stream.map { $0 * 2 }.collect() == [6, 4, 2])
        #expect(countdown.iterations.value == 2)
        #expect(stream.map { $0 }.annotation == nil)
        #expect(PullStream<Int>([1]).annotation == nil)
    }

    /// Hands out one result, one fresh iteration per call of `makeIterator`.
    final class OneResult: PullStreamSource, Sendable {
        final class Iteration: PullStreamIterator {
            var done = false
            func next() async throws -> ChainResponse? {
                defer { done = true }
                return done ? nil : ChainResponse(source: .server, data: .object(["ok": .bool(true)]))
            }
        }

        func makeIterator() -> any PullStreamIterator<ChainResponse> { Iteration() }
    }

    @Test("a stream of results lends the source it was made from, the same object its annotation is, and nothing for any other stream")
    func lentAnnotations() async throws {
        let source = OneResult()
        let stream = PullStream(source: source)
        let lent: AnyObject? = stream.lentAnnotation?.takeUnretainedValue()
        let annotation: AnyObject? = stream.annotation
        #expect(lent === source)
        #expect(lent === annotation)
        let mapped: AnyObject? = stream.map { $0 }.lentAnnotation?.takeUnretainedValue()
        let fixed: AnyObject? = ChainResultStream([ChainResponse(source: .cache, data: nil)]).lentAnnotation?.takeUnretainedValue()
        #expect(mapped == nil && fixed == nil)
        #expect(try await stream.collect().map(\.source) == [.server])
    }

    @Test("a stream made from fixed elements hands them over in memory and iterates them afresh each time")
    func elementStreams() async throws {
        let stream = PullStream([1, 2, 3])
        #expect(stream.elementsInMemory == [1, 2, 3])
        #expect(try await stream.collect() == [1, 2, 3])
        #expect(try await stream.collect() == [1, 2, 3])
        #expect(PullStream<Int>([]).elementsInMemory == [])
        #expect(stream.map { $0 }.elementsInMemory == nil)
        #expect(PullStream<Int> { { nil } }.elementsInMemory == nil)
        #expect(PullStream(source: Countdown(start: 1)).elementsInMemory == nil)
    }

    @Test("mapErrors: a value is yielded and the stream finishes; nil finishes silently; a throw fails")
    func mapErrors() async throws {
        let failing = PullStream<Int> {
            var sent = false
            return {
                if !sent { sent = true; return 1 }
                throw Failure()
            }
        }
        #expect(try await failing.mapErrors { _ in 99 }.collect() == [1, 99])
        #expect(try await failing.mapErrors { _ in nil }.collect() == [1])
        await #expect(throws: Failure.self) { try await failing.mapErrors { throw $0 }.collect() }
    }

}
