import ChainKit
import Timeline
import TimelineFilter
import Vocabulary

/// libFuzzer entry point for filter expressions (`FilterExpression(parsing:)`, its patterns
/// and `matches`, which `trace --filter`, the inspector's `/` and breakpoint rules share).
///
/// Input: one byte `n`, then `n` bytes of expression, then the text the request shows (its
/// operation name, URL, a header value and its body), both read as UTF-8. A refusal names a
/// position within the expression (or one past it) and has no raw control or bidi
/// characters; an accepted expression is evaluated against the request, which must finish
/// (libFuzzer's `-timeout` catches a search that backtracks); and a pattern of letters and
/// digits alone matches exactly when the text contains it, ignoring ASCII case.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFilter(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let length = bytes.first else { return 0 }
    let expressionEnd = min(1 + Int(length), bytes.count)
    let expression = String(decoding: bytes[1..<expressionEnd], as: UTF8.self)
    let text = String(decoding: bytes[expressionEnd...], as: UTF8.self)
    let subject = subject(showing: text)
    do {
        let filter = try FilterExpression(parsing: expression)
        _ = filter.matches(subject)
    } catch {
        guard (1...expression.count + 1).contains(error.position) else {
            fatalError("the error points at \(error.position), outside 1...\(expression.count + 1): \(VisibleEscapes.escape(error.description))")
        }
        if let unsafe = error.description.unicodeScalars.first(where: VisibleEscapes.isUnsafe) {
            fatalError("the error shows \(VisibleEscapes.escaped(unsafe)) raw: \(VisibleEscapes.escape(error.description))")
        }
    }
    checkLiteral(expression, in: subject, text: text)
    return 0
}

/// A request whose operation, URL, header and body all show `text`.
func subject(showing text: String) -> FilterSubject {
    var fields = HTTPFields()
    try? fields.append("X-Text", text)
    let request = HopSnapshot(method: "POST", url: text, headers: fields, body: BodyPreview(text: text, byteCount: text.utf8.count, isTruncated: false))
    let event = TimelineEvent(time: 0, request: 1, attempt: 1, hop: 1, name: "transport", kind: .transport, phase: .send, snapshot: request)
    return FilterSubject(operation: text, events: [event])
}

/// Letters and digits are no pattern syntax, so such a pattern is a plain search. Only for
/// ASCII text: elsewhere case folding reaches past ASCII (the Kelvin sign is a `k`).
func checkLiteral(_ expression: String, in subject: FilterSubject, text: String) {
    guard text.unicodeScalars.allSatisfy(\.isASCII) else { return }
    let literal = String(expression.unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) }.prefix(40))
    guard !literal.isEmpty else { return }
    let expected = asciiLower(text).contains(asciiLower(literal))
    for test in ["~op", "~u", "~b", "~hop"] {
        let found = try? FilterExpression(parsing: "\(test) \(literal)").matches(subject)
        let wanted = test == "~hop" ? asciiLower("transport").contains(asciiLower(literal)) : expected
        guard found == wanted else {
            fatalError("\(test) \(literal) gave \(String(describing: found)), expected \(wanted) for \(VisibleEscapes.escape(text))")
        }
    }
}

func asciiLower(_ text: String) -> String {
    String(String.UnicodeScalarView(text.unicodeScalars.map { ("A"..."Z").contains($0) ? Unicode.Scalar($0.value + 32)! : $0 }))
}
