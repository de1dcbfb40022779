import ChainKit
import Foundation

/// `json.parse.small|medium|large`: megabytes per second that ``JSONValue/init(parsing:)``
/// reads from GraphQL results of about 70 B, 10 KB and 1 MB, against Foundation's
/// `JSONSerialization` parsing the same bytes, interleaved in the same run
/// (`json.parse.SIZE.foundation`, the baseline; target: ratio ≥ 1).
///
/// The documents have the shapes GraphQL results have: objects of short keys, strings (some
/// with escapes and non-ASCII), integers, decimals, booleans, nulls and nested lists.
enum JSONBenchmarks {
    static let sizes: [(name: String, document: @Sendable () -> Data)] = [
        ("small", { small }), ("medium", { heroes(atLeast: 10 * 1024) }), ("large", { heroes(atLeast: 1 << 20) }),
    ]

    static func run(_ sampling: Sampling, _ selection: Selection) async throws -> [Row] {
        // Only the documents of selected figures are built: the large one takes a while.
        let sizes = sizes.filter { selection.includes("json.parse.\($0.name)") || selection.includes("json.parse.\($0.name).foundation") }
            .map { (name: $0.name, document: $0.document()) }
        var subjects: [Subject] = []
        for (name, document) in sizes {
            subjects.append(Subject(name: "json.parse.\(name)", operation: {
                guard case .object = try JSONValue(parsing: document) else { throw BenchFailure("the \(name) document is not an object") }
            }))
            subjects.append(Subject(name: "json.parse.\(name).foundation", operation: {
                guard try JSONSerialization.jsonObject(with: document) is NSDictionary else {
                    throw BenchFailure("Foundation did not read the \(name) document as an object")
                }
            }))
        }
        // The ratio needs the baseline measured too (`--only json.`); `--figure json.parse.small`
        // measures only the parser, for instruction counts.
        let family = Family(subjects: subjects, derived: [:])
        let measured = try await family.measure(sampling, selection)
        var figures: [Figure] = []
        for (name, document) in sizes {
            // Bytes per nanosecond are gigabytes per second.
            func rate(_ subject: String) -> Figure? {
                measured[subject].map { Figure(name: subject, value: Double(document.count) / $0 * 1000, unit: "MB/s") }
            }
            let foundation = rate("json.parse.\(name).foundation")
            if selection.includes("json.parse.\(name).foundation"), let foundation { figures.append(foundation) }
            if selection.includes("json.parse.\(name)"), var ours = rate("json.parse.\(name)") {
                ours = Figure(name: ours.name, value: ours.value, unit: ours.unit, baseline: foundation, target: .ratioAtLeast(1.0))
                figures.append(ours)
            }
        }
        return figures.map(Row.measured)
    }

    /// A 72-byte GraphQL result.
    static let small = Data(#"{"data":{"hero":{"id":"2001","name":"R2-D2","friends":[{"id":"1000"}]}}}"#.utf8)

    /// `{"data":{"heroes":[…]}}` with as many heroes as make it at least `size` bytes.
    static func heroes(atLeast size: Int) -> Data {
        let names = ["Luke Skywalker", "Leia Organa", "Han \"Solo\"", "Chewbacca", "Padmé Amidala", "R2-D2", "C-3PO", "Lando\\Calrissian"]
            .map { JSONValue.string($0).jsonString }
        let episodes = ["NEWHOPE", "EMPIRE", "JEDI"]
        var text = #"{"data":{"heroes":["#
        var index = 0
        while text.utf8.count < size - 3 {
            if index > 0 { text += "," }
            let name = names[index % names.count]
            let friends = (1...3).map { #"{"id":"\#(1000 + (index + $0) % 97)","name":\#(names[(index + $0) % names.count])}"# }
            let planet = index % 3 == 0 ? "null" : #""Tatooine""#
            text += #"{"__typename":"Human","id":"\#(1000 + index)","name":\#(name),"#
                + #""height":\#(Double(150 + index % 50) / 100),"mass":\#(40 + index % 80),"isDroid":\#(index % 5 == 0),"#
                + #""homePlanet":\#(planet),"appearsIn":[\#(episodes.map { "\"\($0)\"" }.joined(separator: ","))],"#
                + #""friends":[\#(friends.joined(separator: ","))]}"#
            index += 1
        }
        text += "]}}"
        return Data(text.utf8)
    }
}
