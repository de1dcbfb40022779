import ChainKit
import Testing

/// Inputs the fuzzers in fuzz/ found breaking ChainKit, kept so they stay fixed.
@Suite("ChainKit fuzz regressions")
struct ChainKitFuzzRegressionTests {
    func parseError(_ bytes: [UInt8]) -> JSONParser.Error? {
        do {
            _ = try JSONParser.parse(bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test("FuzzScenario crash-b0305abb: an invalid escape names a non-ASCII or control byte instead of showing it")
    func invalidEscapeOfUnprintableByte() {
        #expect(parseError(Array(#"{"k":"\"#.utf8) + [0x86] + Array(#""}"#.utf8))?.description
            == #"not valid JSON at line 1, column 7: invalid escape '\' followed by byte 0x86 in string"#)
        #expect(parseError(Array(#"["\"#.utf8) + [0x1B] + Array(#"]2;PWNED"]"#.utf8))?.description
            == #"not valid JSON at line 1, column 3: invalid escape '\' followed by byte 0x1b in string"#)
        #expect(parseError(Array(#"["\q"]"#.utf8))?.description == #"not valid JSON at line 1, column 3: invalid escape '\q' in string"#)
    }

    @Test("FuzzScenario crash-3c805fc4: a number beyond Double's range is refused instead of parsing to infinity")
    func numberBeyondDoubleRange() throws {
        #expect(parseError(Array("1e999".utf8))?.description == "not valid JSON at line 1, column 1: number out of range")
        #expect(parseError(Array(#"{"n": -1e400}"#.utf8))?.description == "not valid JSON at line 1, column 7: number out of range")
        let largest = try JSONParser.parse(Array("[1.7976931348623157e308]".utf8))
        // 17 significant digits: kept as written, read as the largest Double.
        #expect(largest == [.exactNumber("1.7976931348623157e308")])
        #expect(largest.arrayValue?.first?.numberValue == .greatestFiniteMagnitude)
        #expect(try JSONValue(parsing: largest.jsonString) == largest)
    }
}
