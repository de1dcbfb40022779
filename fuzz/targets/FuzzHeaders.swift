import ChainKit
import Vocabulary

/// libFuzzer entry point for the header validator (`HTTPField(name:value:)`, `HTTPFields`).
///
/// Input: one byte `n`, then `n` bytes of name, then the value (both read as UTF-8, invalid
/// sequences becoming U+FFFD). The validator must accept exactly the RFC 9110 tokens as names
/// and exactly the values without CR, LF and NUL, name the first offending character, and
/// `HTTPFields` must keep its case-insensitive set/remove/lookup rules for accepted fields.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHeaders(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let length = bytes.first else { return 0 }
    let nameEnd = min(1 + Int(length), bytes.count)
    let name = String(decoding: bytes[1..<nameEnd], as: UTF8.self)
    let value = String(decoding: bytes[nameEnd...], as: UTF8.self)
    checkField(name: name, value: value)
    checkFields(name: name, value: value)
    return 0
}

/// RFC 9110 §5.6.2 `tchar`, written out independently of the code under test.
let tokenCharacters = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".unicodeScalars)
let forbiddenInValues: Set<Unicode.Scalar> = ["\r", "\n", "\0"]

func checkField(name: String, value: String) {
    let badName = name.unicodeScalars.enumerated().first { !tokenCharacters.contains($0.element) }
    let badValue = value.unicodeScalars.enumerated().first { forbiddenInValues.contains($0.element) }
    do {
        let field = try HTTPField(name: name, value: value)
        guard !name.isEmpty, badName == nil, badValue == nil else {
            fatalError("accepted \"\(VisibleEscapes.escape(name))\": \"\(VisibleEscapes.escape(value))\"")
        }
        guard field.name == name, field.value == value, field.hasName(upper(name)) else { fatalError("the field changed its name or value") }
    } catch {
        let expected: HeaderValidationError
        if name.isEmpty {
            expected = .emptyName
        } else if let badName {
            expected = .invalidName(name: name, character: badName.element, offset: badName.offset)
        } else if let badValue {
            expected = .invalidValue(name: name, character: badValue.element, offset: badValue.offset)
        } else {
            fatalError("refused a valid field \"\(VisibleEscapes.escape(name))\": \(error.description)")
        }
        guard error == expected else { fatalError("\(error.description) instead of \(expected.description)") }
        if let unsafe = error.description.unicodeScalars.first(where: VisibleEscapes.isUnsafe) {
            fatalError("the error shows \(VisibleEscapes.escaped(unsafe)) raw: \(VisibleEscapes.escape(error.description))")
        }
    }
}

func checkFields(name: String, value: String) {
    guard var fields = try? HTTPFields(pairs: [("X-Before", "1"), (name, value), (upper(name), "second")]) else {
        if (try? HTTPField(name: name, value: value)) != nil, (try? HTTPField(name: upper(name), value: "second")) != nil {
            fatalError("HTTPFields refused fields that HTTPField accepts")
        }
        return
    }
    let sameAsBefore = upper(name) == "X-BEFORE"
    guard fields.values(for: name) == (sameAsBefore ? ["1", value, "second"] : [value, "second"]) else {
        fatalError("values(for:) lost a field named \"\(VisibleEscapes.escape(name))\"")
    }
    do { try fields.set(name.lowercased(), value) } catch { fatalError("set refused a name it accepted: \(error.description)") }
    guard fields.values(for: upper(name)) == [value], fields[name] == value else { fatalError("set left more than one field") }
    fields.remove(upper(name))
    guard !fields.contains(name), fields.count == (sameAsBefore ? 0 : 1) else { fatalError("remove left a field behind") }
}

/// ASCII upper case only: token names compare ASCII case-insensitively.
func upper(_ text: String) -> String {
    String(String.UnicodeScalarView(text.unicodeScalars.map { ("a"..."z").contains($0) ? Unicode.Scalar($0.value - 32)! : $0 }))
}
