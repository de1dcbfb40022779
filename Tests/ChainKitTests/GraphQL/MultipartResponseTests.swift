import ChainKit
import Foundation
import Testing

/// A transport answering with a `multipart/mixed` body that arrives in `pieces`, cut into
/// parts as a network transport cuts them.
func multipartTransport(_ contentType: String, _ pieces: [String], log: EventLog? = nil) -> InMemoryGraphQLTransport {
    InMemoryGraphQLTransport { request in
        var fields = HTTPFields()
        try fields.append("Content-Type", contentType)
        let chunks = PullStream(pieces.map { Data($0.utf8) }).map { piece in
            log?.add("piece \(piece.count) bytes")
            return piece
        }
        return NetworkResponse(status: 200, headerFields: fields, url: request.url, chunks: chunks).splittingBodyIntoParts()
    }
}

let deferType = "multipart/mixed;boundary=\"graphql\";deferSpec=20220824"
let subscriptionType = "multipart/mixed;boundary=\"graphql\";subscriptionSpec=1.0"

/// One part as Apollo Router writes it: opening delimiter, header, JSON, closing delimiter.
func part(_ json: String, contentType: String = "application/json") -> String {
    "\r\n--graphql\r\ncontent-type: \(contentType)\r\n\r\n\(json)"
}

let closing = "\r\n--graphql--\r\n"

@Suite("Multipart bodies cut into parts")
struct MultipartPartSplitterTests {
    func split(_ pieces: [String], boundary: String = "-") -> [String] {
        var splitter = MultipartPartSplitter(boundary: boundary)
        var parts: [String] = []
        for piece in pieces { parts += splitter.append(Data(piece.utf8)).map { String(decoding: $0, as: UTF8.self) } }
        if let last = splitter.finish() { parts.append(String(decoding: last, as: UTF8.self)) }
        return parts
    }

    /// Mirrors apollo-ios-dev `AsyncHTTPResponseChunkSequenceTests` (`givenBeginWith_Delimiter_Boundary`,
    /// `givenBeginWith_CRLF_Delimiter_Boundary`, `givenEndwithCRLF`, `givenEndWithCloseDelimiterAfterBoundary`,
    /// `givenEndWithCRLF_Boundary_CloseDelimiter`).
    @Test("delimiters and the close delimiter are cut out as upstream cuts them")
    func delimiters() {
        #expect(split(["\r\n---\r\nTest"]) == ["Test"])
        #expect(split(["\r\n\r\n---\r\nTest"]) == ["Test"])
        #expect(split(["\r\n\r\n---\r\nTest\r\n"]) == ["Test\r\n"])
        #expect(split(["\r\n---\r\nTest\r\n-----"]) == ["Test"])
        #expect(split(["\r\n---\r\nTest\r\n\r\n-----"]) == ["Test\r\n"])
    }

    /// Mirrors `test__multipart__givenMultipleChunks_recievedAtTheSameTime_shouldReturnAllChunks` and
    /// `givenChunkContainingBoundaryString_shouldNotSplitChunk`.
    @Test("several parts in one piece come out one by one; the boundary inside a body does not cut it")
    func severalPartsInOnePiece() {
        let body = "\r\n---\r\nContent-Type: application/json\r\n\r\n{\"data\": {\"field1\": \"value1---\"}}\r\n---\r\nContent-Type: application/json\r\n\r\n{\"data\": {\"field2\": \"value2\"}}\r\n-----"
        #expect(split([body]) == [
            "Content-Type: application/json\r\n\r\n{\"data\": {\"field1\": \"value1---\"}}",
            "Content-Type: application/json\r\n\r\n{\"data\": {\"field2\": \"value2\"}}",
        ])
    }

    /// Mirrors `test__multipart__givenCompleteAndPartialChunks_shouldReturnCompleteChunkSeparateFromPartialChunk`:
    /// a part is handed on only when the delimiter after it has arrived, however the bytes are cut.
    @Test("a part split across pieces, even byte by byte, comes out whole and only once complete")
    func partSplitAcrossPieces() {
        let body = part(#"{"data":{"a":1},"hasNext":true}"#) + part(#"{"incremental":[],"hasNext":false}"#) + closing
        let whole = split([body], boundary: "graphql")
        #expect(whole == [
            "content-type: application/json\r\n\r\n{\"data\":{\"a\":1},\"hasNext\":true}",
            "content-type: application/json\r\n\r\n{\"incremental\":[],\"hasNext\":false}",
        ])
        #expect(split(body.map { String($0) }, boundary: "graphql") == whole)
        var splitter = MultipartPartSplitter(boundary: "graphql")
        let first = part(#"{"data":{"a":1},"hasNext":true}"#)
        #expect(splitter.append(Data(first.utf8)).isEmpty)
        #expect(splitter.append(Data("\r\n--gra".utf8)).isEmpty)
        #expect(splitter.append(Data("phql".utf8)).map { String(decoding: $0, as: UTF8.self) } == [whole[0]])
    }

    @Test("a body opening with --boundary and no CRLF keeps its first part (a deliberate difference from upstream)")
    func openingWithoutCRLF() {
        #expect(split(["--graphql\r\ncontent-type: application/json\r\n\r\n{}\r\n--graphql--"], boundary: "graphql")
            == ["content-type: application/json\r\n\r\n{}"])
    }

    @Test("a non-multipart body arrives as one chunk however it was read; an empty one as none")
    func nonMultipartIsOneChunk() async throws {
        let pieces = NetworkResponse(status: 200, url: endpoint, chunks: PullStream([Data("{\"da".utf8), Data("ta\":{}}".utf8)]))
        var chunks: [String] = []
        for try await chunk in pieces.splittingBodyIntoParts().chunks { chunks.append(String(decoding: chunk, as: UTF8.self)) }
        #expect(chunks == [#"{"data":{}}"#])
        var none = 0
        for try await _ in NetworkResponse(status: 200, url: endpoint, chunks: PullStream([Data()])).splittingBodyIntoParts().chunks { none += 1 }
        #expect(none == 0)
    }

    @Test("with a limit, a whole answer or one part that grows past it fails the body; parts may add up past it")
    func limitBoundsWhatIsHeld() async throws {
        let whole = NetworkResponse(status: 200, url: endpoint, chunks: PullStream([Data(repeating: 0x61, count: 6), Data(repeating: 0x61, count: 6)]))
        var read: [Int] = []
        await #expect(throws: BodyLimitExceeded(limit: 10, isPart: false)) {
            for try await chunk in whole.splittingBodyIntoParts(limit: 10).chunks { read.append(chunk.count) }
        }
        #expect(read == [])

        var fields = HTTPFields()
        try fields.append("Content-Type", "multipart/mixed;boundary=\"b\"")
        let parts = ["\r\n--b\r\n\r\n12345\r\n--b", "\r\n\r\n67890\r\n--b", "\r\n\r\n" + String(repeating: "x", count: 20)]
        let multipart = NetworkResponse(status: 200, headerFields: fields, url: endpoint, chunks: PullStream(parts.map { Data($0.utf8) }))
        var texts: [String] = []
        let failure = await #expect(throws: BodyLimitExceeded.self) {
            for try await chunk in multipart.splittingBodyIntoParts(limit: 12).chunks { texts.append(String(decoding: chunk, as: UTF8.self)) }
        }
        #expect(failure == BodyLimitExceeded(limit: 12, isPart: true))
        #expect(failure?.description == "a part of the answer is larger than 12 bytes")
        #expect(texts == ["\r\n12345", "\r\n67890"])
    }

    @Test("the Content-Type's subtype, quoted boundary and specification are read as upstream reads them")
    func contentType() {
        let type = MultipartContentType("multipart/mixed; boundary=\"graphql\"; deferSpec=20220824")
        #expect(type == MultipartContentType(subtype: "mixed", boundary: "graphql", specification: "deferSpec=20220824"))
        #expect(MultipartContentType("multipart/mixed;boundary=-;subscriptionSpec=1.0").boundary == "-")
        #expect(MultipartContentType("application/json") == MultipartContentType(subtype: nil, boundary: nil, specification: nil))
    }
}

/// `deferSpec=20220824` through the chain, against apollo-ios-dev
/// `JSONResponseParsingInterceptor_MultipartResponseDeferParser_Tests.swift` and
/// `JSONResponseParsingInterceptorTests_IncrementalItems.swift`.
@Suite("@defer answers")
struct MultipartDeferTests {
    static let initial = #"{"data":{"hero":{"id":"2001","name":"R2-D2"}},"hasNext":true}"#
    static let increment = #"{"incremental":[{"data":{"appearsIn":["NEWHOPE"]},"path":["hero"],"label":"films"}],"hasNext":false}"#

    /// The operation the parts answer: the films arrive later, under `@defer`.
    static let heroDeferQuery = ChainOperation(
        name: "HeroDeferQuery", kind: .query, document: #"query HeroDeferQuery { hero { id name ... @defer(label: "films") { appearsIn } } }"#)

    func outcome(_ pieces: [String], contentType: String = deferType, graphQL: [any ChainInterceptor] = [], store: CacheStore = CacheStore()) async -> Outcome {
        await run(makeChain(graphQL: graphQL, store: store, transport: multipartTransport(contentType, pieces)).kickoff(request: request(Self.heroDeferQuery)))
    }

    func error<E: Error>(_ outcome: Outcome, as type: E.Type) throws -> E {
        try #require(outcome.error as? E, "got \(String(describing: outcome.error))")
    }

    /// Mirrors `test__intercept__givenSingleChunk_shouldReturnSuccess` and the incremental-items suite.
    @Test("the initial payload, then the increment merged at its path: one result per part, each post-flight once per result")
    func initialThenMerged() async throws {
        let log = EventLog()
        let store = CacheStore()
        let result = await outcome([part(Self.initial) + "\r\n--graphql", "\r\ncontent-type: application/json\r\n\r\n" + Self.increment + closing],
                                   graphQL: [RecordingInterceptor(name: "A", log: log)], store: store)
        #expect(result.error == nil)
        #expect(result.responses.map(\.data) == [
            ["hero": ["id": "2001", "name": "R2-D2"]],
            ["hero": ["id": "2001", "name": "R2-D2", "appearsIn": ["NEWHOPE"]]],
        ])
        #expect(log.all == ["enter A", "leave A", "leave A"])
        // The merged result's records are written after the first result's: the cache ends with
        // the deferred films too.
        #expect(store.load(Self.heroDeferQuery)?.data == ["hero": ["id": "2001", "name": "R2-D2", "appearsIn": ["NEWHOPE"]]])
    }

    /// Mirrors `givenSingleChunk_withMultipleContentTypeDirectives` and `withGraphQLOverHTTPContentType`.
    @Test("application/graphql-response+json and charset directives are accepted")
    func contentTypes() async {
        let result = await outcome([part(Self.initial, contentType: "application/graphql-response+json; charset=utf-8") + closing])
        #expect(result.responses.map(\.data) == [["hero": ["id": "2001", "name": "R2-D2"]]])
    }

    /// Mirrors `test__intercept__givenChunk_withIncorrectContentType_shouldThrowError`.
    @Test("a part of another content type fails with unsupportedContentType")
    func incorrectContentType() async throws {
        let result = await outcome([part(Self.initial, contentType: "test/custom") + closing])
        #expect(try error(result, as: MultipartResponseDeferParser.ParsingError.self) == .unsupportedContentType(type: "test/custom"))
    }

    /// Mirrors `test__intercept__givenUnrecognizableChunk_shouldThrowError`.
    @Test("a part that is neither headers nor JSON fails with cannotParseChunkData")
    func unrecognizableChunk() async throws {
        let result = await outcome([part("not json") + closing])
        #expect(try error(result, as: MultipartResponseDeferParser.ParsingError.self) == .cannotParseChunkData)
    }

    /// Mirrors `test__intercept__givenChunk_withMissingPartialOrIncrementalData_shouldThrowError`.
    @Test("JSON without data/incremental and hasNext fails with cannotParsePayloadData")
    func missingPayload() async throws {
        let result = await outcome([part(#"{"key":"value"}"#) + closing])
        #expect(try error(result, as: MultipartResponseDeferParser.ParsingError.self) == .cannotParsePayloadData)
    }

    /// Mirrors upstream `IncrementalResponseError` (`IncrementalResponseExecutionHandler.swift`) and
    /// `DataDict.MergeError` (`DataDict+Merging.swift`).
    @Test("increments that cannot be merged fail with upstream's incremental errors", arguments: [
        ([Self.increment], IncrementalResponseError.missingExistingData),
        ([Self.initial, #"{"incremental":[{"data":{},"label":"films"}],"hasNext":false}"#], .missingPath),
        ([Self.initial, #"{"incremental":[{"data":{},"path":["hero"]}],"hasNext":false}"#], .missingLabel),
        ([Self.initial, #"{"incremental":[{"data":{},"path":[],"label":"x"}],"hasNext":false}"#], .emptyMergePath),
        ([Self.initial, #"{"incremental":[{"data":{"x":1},"path":["villain"],"label":"x"}],"hasNext":false}"#], .cannotFindPathComponent("villain")),
        ([Self.initial, #"{"incremental":[{"data":{"x":1},"path":["hero",0],"label":"x"}],"hasNext":false}"#], .invalidPathComponentForDataType(0, "object")),
        ([Self.initial, #"{"incremental":[{"data":{"x":1},"path":["hero","name","x"],"label":"x"}],"hasNext":false}"#], .dataTypeNotAccessibleByPathComponent("name")),
        ([Self.initial, #"{"incremental":[{"data":{"x":1},"path":["hero","name"],"label":"x"}],"hasNext":false}"#], .incrementalMergeNeedsObject),
        ([Self.initial, #"{"incremental":[{"data":{"name":"C-3PO"},"path":["hero"],"label":"x"}],"hasNext":false}"#],
         .cannotOverwriteFieldData(field: "name", current: "R2-D2", new: "C-3PO")),
    ])
    func mergeErrors(parts: [String], expected: IncrementalResponseError) async throws {
        let result = await outcome([parts.map { part($0) }.joined() + closing])
        #expect(try error(result, as: IncrementalResponseError.self) == expected)
    }

    @Test("increments' errors are appended and extensions merged, the newer winning")
    func errorsAndExtensions() async {
        let result = await outcome([part(#"{"data":{"hero":{"id":"1","name":"R2"}},"errors":[{"message":"a"}],"extensions":{"k":1,"j":1},"hasNext":true}"#)
            + part(#"{"incremental":[{"data":{"appearsIn":["JEDI"]},"path":["hero"],"label":"films","errors":[{"message":"b"}],"extensions":{"k":2}}],"hasNext":false}"#) + closing])
        #expect(result.responses.last?.errors?.map(\.message) == ["a", "b"])
        #expect(result.responses.last?.extensions == ["k": 2, "j": 1])
        #expect(result.responses.last?.data == ["hero": ["id": "1", "name": "R2", "appearsIn": ["JEDI"]]])
    }

    /// Mirrors upstream `JSONResponseParsingError.missingMultipartBoundary` / `.invalidMultipartProtocol`
    /// (`JSONResponseParser.swift`).
    @Test("a multipart Content-Type without a boundary, or with an unknown specification, fails on the first part")
    func headerErrors() async throws {
        let noBoundary = InMemoryGraphQLTransport { request in
            NetworkResponse(status: 200, headerFields: try HTTPFields(["Content-Type": "multipart/mixed;deferSpec=20220824"]), url: request.url, body: Data("x".utf8))
        }
        let missing = await run(makeChain(transport: noBoundary).kickoff(request: request()))
        #expect(try error(missing, as: JSONResponseParsingError.self) == .missingMultipartBoundary)
        let unknown = await outcome([part(Self.initial) + closing], contentType: "multipart/mixed;boundary=graphql;deferSpec=20990101")
        #expect(try error(unknown, as: JSONResponseParsingError.self) == .invalidMultipartProtocol)
        let none = await outcome([part(Self.initial) + closing], contentType: "multipart/mixed;boundary=graphql")
        #expect(try error(none, as: JSONResponseParsingError.self) == .invalidMultipartProtocol)
    }
}

/// `subscriptionSpec=1.0` through the chain, against apollo-ios-dev
/// `JSONResponseParsingInterceptor_MultipartResponseSubscriptionParser_Tests.swift`.
@Suite("HTTP subscription answers")
struct MultipartSubscriptionTests {
    /// The operation the events answer (upstream's tests parse into a `ticker` selection too).
    static let ticker = ChainOperation(name: "Ticker", kind: .subscription, document: "subscription Ticker { ticker }")

    func outcome(_ body: String, operation: ChainOperation = ticker) async -> Outcome {
        await run(makeChain(transport: multipartTransport(subscriptionType, [body])).kickoff(request: request(operation)))
    }

    static func event(_ ticker: Int) -> String { #"{"payload":{"data":{"ticker":\#(ticker)}}}"# }

    /// Mirrors `test__parsing__givenHeartbeat_shouldIgnore`, `givenMultipleChunks_shouldReturnMultipleSuccesses`,
    /// `givenNullPayload_shouldIgnore` and `givenNullErrors_shouldIgnore`.
    @Test("each event is a result; heartbeats, null payloads and null errors yield nothing")
    func eventsAndHeartbeats() async {
        let result = await outcome(part(Self.event(1)) + part("{}") + part(#"{"payload":null}"#) + part(#"{"payload":{"data":{"ticker":2}},"errors":null}"#) + closing)
        #expect(result.error == nil)
        #expect(result.responses.map(\.data) == [["ticker": 1], ["ticker": 2]])
    }

    /// Mirrors `test__parsing__givenHeartbeatMissingEndDataLineSeparator_shouldIgnore`.
    @Test("a heartbeat part of only {} is ignored too")
    func bareHeartbeat() async {
        let result = await outcome("\r\n--graphql\r\n{}" + part(Self.event(1)) + closing)
        #expect(result.responses.map(\.data) == [["ticker": 1]])
    }

    /// Mirrors `test__error__givenTransportError_shouldReturnError`, `givenTransportErrorWithNullPayload`
    /// and `givenTransportErrorWithValidPayload_errorShouldTakePrecendenceAndReturnError`.
    @Test("top-level errors end the subscription with irrecoverableErrors, even beside a payload", arguments: [
        #"{"errors":[{"message":"forced test failure!"}]}"#,
        #"{"payload":null,"errors":[{"message":"forced test failure!"}]}"#,
        #"{"payload":{"data":{"ticker":5}},"errors":[{"message":"forced test failure!"}]}"#,
    ])
    func transportErrors(json: String) async throws {
        let result = await outcome(part(Self.event(1)) + part(json) + part(Self.event(2)) + closing)
        #expect(result.responses.map(\.data) == [["ticker": 1]])
        let error = try #require(result.error as? MultipartResponseSubscriptionParser.ParsingError)
        #expect(error == .irrecoverableErrors([GraphQLError(message: "forced test failure!")]))
    }

    /// Mirrors `test__error__givenIncorrectContentType_shouldReturnError`, `givenMalformedJSON_shouldReturnError`,
    /// and `test__parsing__givenCapitalizedContentType_shouldReturnSuccess`.
    @Test("content types and malformed parts")
    func malformed() async throws {
        let custom = await outcome(part(Self.event(1), contentType: "test/custom") + closing)
        #expect(custom.error as? MultipartResponseSubscriptionParser.ParsingError == .unsupportedContentType(type: "test/custom"))
        let malformed = await outcome(part(#"{"payload":{"data":"#) + closing)
        #expect(malformed.error as? MultipartResponseSubscriptionParser.ParsingError == .cannotParseChunkData)
        let notObject = await outcome(part(#"{"payload":[1]}"#) + closing)
        #expect(notObject.error as? MultipartResponseSubscriptionParser.ParsingError == .cannotParsePayloadData)
        let capitalized = await outcome("\r\n--graphql\r\nContent-Type: application/json\r\n\r\n" + Self.event(1) + closing)
        #expect(capitalized.responses.map(\.data) == [["ticker": 1]])
    }

    /// Mirrors `test__parsing__givenSingleChunk_withDashBoundaryInMessageBody_shouldReturnSuccess`.
    @Test("dashes and the boundary inside an event do not cut it")
    func boundaryInBody() async {
        let text = "lots-graphql-of--graphql-similar---graphql"
        let result = await outcome(
            part(#"{"payload":{"data":{"text":"\#(text)"}}}"#) + closing,
            operation: ChainOperation(name: "Text", kind: .subscription, document: "subscription Text { text }"))
        #expect(result.responses.map(\.data) == [["text": .string(text)]])
    }
}

@Suite("multipart/mixed detection")
struct MultipartDetectionTests {
    /// Upstream's `HTTPURLResponse.isMultipart` (`HTTPURLResponse+MultipartHeaderComponents.swift`):
    /// the Content-Type contains `multipart/mixed`, anywhere.
    @Test("the byte scan agrees with String.contains", arguments: [
        "multipart/mixed", "multipart/mixed;boundary=\"graphql\";deferSpec=20220824", "text/plain, multipart/mixed",
        "application/json", "multipart/mixe", "multipart/mixedx", "", "mmultipart/mixed", "multipart/form-data", "Multipart/Mixed",
    ])
    func agreesWithContains(value: String) {
        #expect(MultipartContentType.isMultipartMixed(value) == value.contains("multipart/mixed"))
    }

    @Test("a response's fields are multipart exactly when their joined Content-Type is", arguments: [
        ([("Content-Type", deferType)], true),
        ([("content-type", "multipart/mixed")], true),
        ([("CONTENT-TYPE", "text/plain"), ("Content-Type", "multipart/mixed;boundary=-")], true),
        ([("Content-Type", "application/json")], false),
        ([], false),
        ([("X-Content-Type", "multipart/mixed"), ("Accept", "multipart/mixed")], false),
        ([("Content-Type", "multipart/mi"), ("Content-Type", "xed")], false),
        ([("Content-Type", "multipart/mixed, "), ("Content-Type", "text/plain")], true),
    ])
    func fieldsAgreeWithJoinedValue(pairs: [(String, String)], expected: Bool) throws {
        let fields = try HTTPFields(pairs: pairs)
        #expect(MultipartContentType.isMultipartMixed(fields) == expected)
        #expect(MultipartContentType.isMultipartMixed(fields["Content-Type"]) == expected)
    }

    @Test func noValueIsNotMultipart() {
        #expect(!MultipartContentType.isMultipartMixed(nil))
    }
}
