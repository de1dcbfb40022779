import ChainKit
import Foundation
import Vocabulary

/// libFuzzer entry point for `JSONParser`, which reads every body a server answers with.
///
/// Input: any bytes, parsed as one JSON document. Properties: a document that parses encodes
/// (either escaping) to text that parses to the same value and encodes to the same bytes; a
/// top-level number reads (`numberValue`) as the standard library's correctly rounded `Double`
/// of the same text, sign of zero included (the parser's fast path must never round
/// differently); refusing
/// duplicate keys changes nothing for a document without them, and otherwise fails naming a
/// duplicate key; a refusal says where it is (an offset within the input, line and column
/// from 1) and describes itself without raw control or bidi characters.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let value: JSONValue
    do {
        value = try JSONParser.parse(bytes)
    } catch {
        checkRefusal(error, of: bytes)
        return 0
    }
    for escaping in [JSONValue.Escaping.terminalSafe, .minimal] {
        let text = value.jsonString(escaping: escaping)
        guard let again = try? JSONParser.parse(text) else { fatalError("an encoded value does not parse: \(VisibleEscapes.escape(text))") }
        guard again == value else { fatalError("an encoded value parses to another value: \(VisibleEscapes.escape(text))") }
        guard again.jsonString(escaping: escaping) == text else { fatalError("encoding is not stable: \(VisibleEscapes.escape(text))") }
    }
    if let number = value.numberValue {
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: CharacterSet(charactersIn: " \t\r\n"))
        guard let expected = Double(text) else { fatalError("the standard library does not read the number \(VisibleEscapes.escape(text))") }
        guard expected.bitPattern == number.bitPattern else { fatalError("\(VisibleEscapes.escape(text)) parsed as \(number), not \(expected)") }
    }
    do {
        let strict = try JSONParser.parse(bytes, options: JSONParser.Options(rejectsDuplicateKeys: true))
        guard strict == value else { fatalError("refusing duplicate keys changed the value") }
    } catch {
        guard error.reason.hasPrefix("duplicate key") else { fatalError("refusing duplicate keys failed otherwise: \(VisibleEscapes.escape(error.description))") }
        checkRefusal(error, of: bytes)
    }
    return 0
}

func checkRefusal(_ error: JSONParser.Error, of bytes: [UInt8]) {
    guard (0...bytes.count).contains(error.offset), error.line >= 1, error.column >= 1 else {
        fatalError("a refusal points outside the input: offset \(error.offset) of \(bytes.count), line \(error.line), column \(error.column)")
    }
    for description in [error.description, error.path] {
        if let unsafe = description.unicodeScalars.first(where: VisibleEscapes.isUnsafe) {
            fatalError("a refusal shows \(VisibleEscapes.escaped(unsafe)) raw: \(VisibleEscapes.escape(description))")
        }
    }
}
