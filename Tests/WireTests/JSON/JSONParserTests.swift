import Wire
import Foundation
import Testing
import TestSupport

@Suite("JSONParser")
struct JSONParserTests {
    func parseError(_ text: String, options: JSONParser.Options = JSONParser.Options()) -> JSONParser.Error? {
        do {
            _ = try JSONParser.parse(Array(text.utf8), options: options)
            return nil
        } catch {
            return error
        }
    }

    @Test("a document of the wrong top-level kind is refused at its first byte")
    func wrongTopLevelKind() throws {
        let object = JSONParser.Options(expecting: .object)
        // An array that never ends: read to its end it would be a different error.
        let error = try #require(parseError("  [" + String(repeating: "1,", count: 100_000), options: object))
        #expect(error.description == "not valid JSON at line 1, column 3: expected an object at the top, found an array")
        #expect(error.offset == 2)
        #expect(parseError("\n\"text\"", options: object)?.description
            == "not valid JSON at line 2, column 1: expected an object at the top, found a string")
        #expect(parseError("<html>", options: object)?.description
            == "not valid JSON at line 1, column 1: expected an object at the top, found '<'")
        #expect(parseError("{}", options: JSONParser.Options(expecting: .array))?.description
            == "not valid JSON at line 1, column 1: expected an array at the top, found an object")
        #expect(parseError("   ", options: object)?.description
            == "not valid JSON at line 1, column 4: unexpected end of input, expected a value")
        #expect(try JSONParser.parse(Array(#" {"a":[1]} "#.utf8), options: object) == ["a": [1]])
        #expect(try JSONParser.parse(Array("-2".utf8), options: JSONParser.Options(expecting: .number)) == -2)
    }

    @Test("duplicate keys: the last wins by default; refused with their JSON path when asked")
    func duplicateKeys() throws {
        let strict = JSONParser.Options(rejectsDuplicateKeys: true)
        #expect(try JSONParser.parse(Array(#"{"a":1,"a":2}"#.utf8)) == ["a": 2])
        let nested = try #require(parseError(#"{"a":{"b":1,"b":2}}"#, options: strict))
        #expect(nested.description == #"not valid JSON at line 1, column 13: duplicate key "b" at a.b"#)
        #expect(nested.offset == 12)
        #expect(nested.path == "a.b")
        let inArray = try #require(parseError("{\"operations\":[{\"name\":\"A\"},\n {\"name\":\"B\", \"name\":\"C\"}]}", options: strict))
        #expect(inArray.description == #"not valid JSON at line 2, column 15: duplicate key "name" at operations[1].name"#)
        #expect(parseError(#"{"x":1,"x":1}"#, options: strict)?.path == "x")
        #expect(parseError(#"{"a b":{"c.d":0,"c.d":0}}"#, options: strict)?.reason == #"duplicate key "c.d" at ["a b"]["c.d"]"#)
        // The same key in different objects is no duplicate.
        #expect(try JSONParser.parse(Array(#"[{"a":1},{"a":2}]"#.utf8), options: strict) == [["a": 1], ["a": 2]])
    }

    @Test("every error carries the path of the value it happened in")
    func errorPaths() {
        #expect(parseError(#"{"a":[1,2,x]}"#)?.path == "a[2]")
        #expect(parseError(#"{"a":[1,2,x]}"#)?.description == "not valid JSON at line 1, column 11: unexpected character 'x', expected a value")
        #expect(parseError(#"{"a":{"b" 1}}"#)?.path == "a")
        #expect(parseError("[1,")?.path == "[1]")
        #expect(parseError("nul")?.path == "")
    }

    @Test("whitespace is skipped byte by byte, however much of it there is")
    func longWhitespace() throws {
        let padding = String(repeating: " \n\t\r", count: 250_000)
        #expect(try JSONParser.parse(Array((padding + "[true]" + padding).utf8)) == [true])
        let error = try #require(parseError(String(repeating: " ", count: 1_000_000)))
        #expect(error.description == "not valid JSON at line 1, column 1000001: unexpected end of input, expected a value")
    }

    @Test("Data, String and byte-array inputs parse alike")
    func inputKinds() throws {
        let text = #"{"s":"é\u00e9","n":[0,-0.5,1e2]}"#
        let expected: JSONValue = ["s": "éé", "n": [0, -0.5, 100]]
        #expect(try JSONParser.parse(Array(text.utf8)) == expected)
        #expect(try JSONParser.parse(Data(text.utf8)) == expected)
        #expect(try JSONParser.parse(text) == expected)
        #expect(try JSONValue(parsing: Data(text.utf8)) == expected)
        #expect(try JSONValue(parsing: text) == expected)
        #expect(try JSONValue(parsing: Data(#"{"a":{}}"#.utf8), options: JSONParser.Options(expecting: .object)) == ["a": [:]])
    }

    @Test("numbers: the fast path and the full conversion agree with Double(String) to the bit")
    func numbersMatchTheStandardLibrary() throws {
        var random = SplitMix(seed: 7)
        var texts = ["0", "-0", "0.1", "0.3", "1e22", "1e23", "9007199254740993", "123456789012345", "1234567890123456",
                     "4.9e-324", "2.2250738585072014e-308", "1.7976931348623157e308", "0.000001", "-12.5e-3", "5e-22", "5e-23"]
        for _ in 0..<20_000 {
            var text: String = random.next() % 4 == 0 ? "-" : ""
            let integer = String(random.next() % 1_000_000_000_000)
            text += String(integer.prefix(Int(random.next() % 17) + 1))
            let signLength = text.hasPrefix("-") ? 2 : 1
            if text.hasPrefix("0") || text.hasPrefix("-0"), text.count > signLength { continue }
            if random.next() % 2 == 0 {
                let fraction = String(random.next() % 10_000_000_000)
                text += "." + String(fraction.prefix(Int(random.next() % 12) + 1))
            }
            if random.next() % 3 == 0 {
                let marker = random.next() % 2 == 0 ? "e" : "E-"
                text += marker + String(random.next() % 40)
            }
            texts.append(text)
        }
        for text in texts {
            let parsed = try JSONParser.parse(Array(text.utf8))
            guard let value = parsed.numberValue, let expected = Double(text) else {
                Issue.record("\(text) did not parse to a number")
                continue
            }
            #expect(value.bitPattern == expected.bitPattern, "\(text)")
            if case .exactNumber(let kept) = parsed { #expect(kept == text) }
        }
    }

    @Test("a number with more than 15 significant digits keeps its text: parsed and encoded as it came")
    func exactNumbers() throws {
        let value = try JSONValue(parsing: #"{"x": 9007199254740993, "y": -12345678901234567890123, "z": 0.12345678901234567891, "w": 3, "v": 123456789012345}"#)
        let members = try #require(value.objectValue)
        #expect(members["x"] == .exactNumber("9007199254740993"))
        #expect(members["y"] == .exactNumber("-12345678901234567890123"))
        #expect(members["w"] == .number(3))
        #expect(members["v"] == .number(123_456_789_012_345))
        #expect(members["x"]?.numberValue == 9_007_199_254_740_992)
        #expect(value.jsonString == #"{"v":123456789012345,"w":3,"x":9007199254740993,"y":-12345678901234567890123,"z":0.12345678901234567891}"#)
    }

    /// Found by FuzzJSON: 4880444444464E3 is a Double whose own text, 4880444444464000.0, has
    /// 17 digits, of which 13 are significant. Zeros before the first other digit and after
    /// the last do not count, so that text reads back as the same Double.
    @Test("zeros at either end of a number are not significant: a Double's own text reads back as that Double", arguments: [
        ("4880444444464E3", JSONValue.number(4_880_444_444_464_000)), ("4880444444464000.0", .number(4_880_444_444_464_000)),
        ("0.000000000000000001234", .number(1.234e-18)), ("1234567890123450000000", .number(1.23456789012345e21)),
        ("12345678901234560", .exactNumber("12345678901234560")),
    ])
    func insignificantZeros(text: String, expected: JSONValue) throws {
        let parsed = try JSONValue(parsing: Data(text.utf8))
        #expect(parsed == expected)
        #expect(try JSONValue(parsing: Data(parsed.jsonString.utf8)) == parsed)
    }

    @Test("agrees with the previous parser, value for value and error for error, on mutated documents")
    func agreesWithTheReferenceParser() throws {
        let seeds = [
            #"{"data":{"hero":{"id":"2001","name":"R2-D2","friends":[{"name":"Luke"},{"name":"Han"}]}}}"#,
            #" {"b": [1, 2.5, -3e2, true, false, null], "a": {"s": "x\"y\\z\u00e9\ud83d\ude00\/\b\f\n\r\t"}} "#,
            #"["\ud800", "\ud800\u0041", "\udc00", "\ud83d\ude00x", "é€😀", 1.5e300, -0, 0.0e-0]"#,
            #"{"errors":[{"message":"PersistedQueryNotFound","extensions":{"code":"X"}}],"data":null}"#,
        ]
        var random = SplitMix(seed: 20)
        let specials: [UInt8] = [0x22, 0x5C, 0x7B, 0x7D, 0x5B, 0x5D, 0x2C, 0x3A, 0x20, 0x0A, 0x00, 0x1F, 0x80, 0xC3, 0xE2, 0xFF,
                                 0x75, 0x30, 0x2D, 0x2E, 0x65, 0x74, 0x6E]
        var checked = 0
        for seed in seeds {
            let bytes = Array(seed.utf8)
            for _ in 0..<1_500 {
                var mutated = bytes
                for _ in 0..<Int(random.next() % 3) + 1 {
                    let position = Int(random.next() % UInt64(mutated.count))
                    switch random.next() % 4 {
                    case 0: mutated[position] = specials[Int(random.next() % UInt64(specials.count))]
                    case 1: mutated.insert(specials[Int(random.next() % UInt64(specials.count))], at: position)
                    case 2: mutated.remove(at: position)
                    default: mutated = Array(mutated[..<position])
                    }
                    if mutated.isEmpty { break }
                }
                expectSameOutcome(mutated)
                checked += 1
            }
            expectSameOutcome(bytes)
        }
        #expect(checked == 6_000)
    }

    func expectSameOutcome(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let expected: Result<JSONValue, ReferenceJSONParser.Error> = Result { () throws(ReferenceJSONParser.Error) in try ReferenceJSONParser.parse(bytes) }
        let actual: Result<JSONValue, JSONParser.Error> = Result { () throws(JSONParser.Error) in try JSONParser.parse(bytes) }
        switch (expected, actual) {
        case (.success(let old), .success(let new)):
            #expect(sameBits(old, new), "\(bytes)", sourceLocation: sourceLocation)
        case (.failure(let old), .failure(let new)):
            #expect([old.description, "\(old.offset)"] == [new.description, "\(new.offset)"], "\(bytes)", sourceLocation: sourceLocation)
        default:
            Issue.record("outcomes differ for \(bytes): \(expected) against \(actual)", sourceLocation: sourceLocation)
        }
    }

    /// Equality that tells -0 from 0 and compares strings by their scalars.
    func sameBits(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.number(let x), .number(let y)): x.bitPattern == y.bitPattern
        case (.number(let x), .exactNumber(let text)): x.bitPattern == Double(text)?.bitPattern
        case (.string(let x), .string(let y)): Array(x.unicodeScalars) == Array(y.unicodeScalars)
        case (.array(let x), .array(let y)): x.count == y.count && zip(x, y).allSatisfy(sameBits)
        case (.object(let x), .object(let y)): x.count == y.count && x.allSatisfy { key, value in y[key].map { sameBits(value, $0) } ?? false }
        default: a == b
        }
    }
}
