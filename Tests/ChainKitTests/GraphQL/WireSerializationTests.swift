import ChainKit
import Foundation
import Testing
import TestSupport

/// The bytes of a request as an app built on Apollo iOS 2.4 sends them. Upstream serializes a
/// body with `JSONSerialization.data(withJSONObject:options: [.sortedKeys])`
/// (`Sources/Apollo/JSONSerializationFormat.swift`) and builds a GET URL with
/// `URLQueryParameterTransformer` (`Sources/Apollo/URLQueryParameterTransformer.swift`), so
/// these tests compare ChainKit's bytes with what Foundation itself writes on this platform.
@Suite("Wire serialization as Apollo iOS's")
struct WireSerializationTests {
    /// What Foundation writes for `value`, with integral numbers as an app's `Int`s.
    static func foundationBytes(_ value: JSONValue) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: foundationObject(value), options: [.sortedKeys, .fragmentsAllowed]))
    }

    static func foundationObject(_ value: JSONValue) -> Any {
        switch value {
        case .null: NSNull()
        case .bool(let flag): flag
        case .number(let number): number.rounded() == number && abs(number) < 0x1p63 ? Int(number) as Any : number as Any
        case .exactNumber(let text): Double(text)! as Any
        case .string(let text): text
        case .array(let values): values.map(foundationObject)
        case .object(let members): members.mapValues(foundationObject)
        }
    }

    static let keyPieces = ["a", "B", "z", "Z", "_", "-", "0", "9", "10", "é", "ä", "ss", "ß", "x", "id", "ID", "name", "Name", " ", "~", "€"]
    static let stringPieces = ["/", "\\", "\"", "\n", "\t", "\u{1}", "\u{7F}", "\u{202E}", "é", "😀", "a", " ", "</script>", "http://x/y"]

    static func randomValue(_ random: inout SplitMix, depth: Int) -> JSONValue {
        func pick(_ pieces: [String]) -> String {
            (0..<Int(random.next() % 4)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
        }
        switch random.next() % (depth > 2 ? 5 : 7) {
        case 0: return .null
        case 1: return .bool(random.next() % 2 == 0)
        case 2: return .number(Double(Int64(random.next() % 2_000_001) - 1_000_000) / [1, 10, 1000, 3][Int(random.next() % 4)])
        case 3: return .number([1e15, 1e16, 1e21, 1.5e-7, 0.1, 123456.789, 1e300][Int(random.next() % 7)])
        case 4: return .string(pick(stringPieces))
        case 5: return .array((0..<Int(random.next() % 4)).map { _ in randomValue(&random, depth: depth + 1) })
        default:
            var members: [String: JSONValue] = [:]
            for _ in 0..<Int(random.next() % 6) { members[pick(keyPieces)] = randomValue(&random, depth: depth + 1) }
            return .object(members)
        }
    }

    @Test("2,000 generated values encode as Foundation's sortedKeys writes them: key order, \\/, escapes, numbers")
    func matchesJSONSerialization() throws {
        var random = SplitMix(seed: 49)
        var objects = 0
        for _ in 0..<2_000 {
            let value = Self.randomValue(&random, depth: 0)
            if case .object(let members) = value, members.count > 1 { objects += 1 }
            #expect(Array(value.encoded(escaping: .foundation)) == (try Self.foundationBytes(value)), "\(value)")
        }
        #expect(objects >= 150)
    }

    @Test("the orders and escapes that differ from plain byte order, spelled out")
    func spelledOut() {
        let value: JSONValue = ["a10": 1, "a9": 2, "B": 3, "a": 4, "_x": 5, "path": "/graphql", "é": 6, "e": 7]
        #expect(String(decoding: value.encoded(escaping: .foundation), as: UTF8.self)
            == #"{"_x":5,"a":4,"a9":2,"a10":1,"B":3,"e":7,"é":6,"path":"\/graphql"}"#)
        #expect(String(decoding: value.encoded, as: UTF8.self)
            == #"{"B":3,"_x":5,"a":4,"a10":1,"a9":2,"e":7,"path":"/graphql","é":6}"#)
    }

    @Test("a POST body is written as upstream's: sorted keys and \\/ in the document")
    func postBody() throws {
        let operation = ChainOperation(
            name: "Search", kind: .query, document: #"query Search($q: String) { search(q: $q, path: "a/b") { id } }"#,
            variables: ["q": "AC/DC", "limit10": 10, "limit9": 9])
        let sent = try request(operation).makeNetworkRequest()
        #expect(String(decoding: try #require(sent.body), as: UTF8.self)
            == #"{"operationName":"Search","query":"query Search($q: String) { search(q: $q, path: \"a\/b\") { id } }","variables":{"limit9":9,"limit10":10,"q":"AC\/DC"}}"#)
    }

    @Test("a GET URL is built as URLQueryParameterTransformer builds it: items in key order, + and ; encoded")
    func getURL() throws {
        var get = request(ChainOperation(
            name: "Q", kind: .query, document: #"query Q($a: Int) { hero(id: "1+2;3&=/?") { id } }"#, variables: ["a": 1, "b/": "x y"]))
        get.useGETForQueries = true
        get.graphQLEndpoint = URL(string: "https://lab.example/graphql?client=ios")!
        let url = try get.makeNetworkRequest().url.absoluteString
        #expect(url == "https://lab.example/graphql?client=ios&operationName=Q"
            + "&query=query%20Q($a:%20Int)%20%7B%20hero(id:%20%221%2B2%3B3%26%3D/?%22)%20%7B%20id%20%7D%20%7D"
            + "&variables=%7B%22a%22:1,%22b%5C/%22:%22x%20y%22%7D")
        // The same as Foundation's own components would make of the same items.
        var components = URLComponents(string: "https://lab.example/graphql?client=ios")!
        components.queryItems! += [
            URLQueryItem(name: "operationName", value: "Q"), URLQueryItem(name: "query", value: get.operation.document),
            URLQueryItem(name: "variables", value: #"{"a":1,"b\/":"x y"}"#),
        ]
        components.percentEncodedQuery = components.percentEncodedQuery?.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "+;").inverted)
        #expect(url == components.url?.absoluteString)
    }
}
