import Wire
import Testing

@Suite("HTTPFields")
struct HTTPFieldsTests {
    @Test("names compare case-insensitively, keep their case and may repeat, in order")
    func caseAndOrder() throws {
        var fields = try HTTPFields(["Accept": "text/plain", "X-Trace": "1", "x-trace": "2"])
        #expect(fields["X-TRACE"] == "1, 2")
        #expect(fields.values(for: "x-Trace") == ["1", "2"])
        try fields.set("x-TRACE", "3")
        #expect(fields.map(\.name) == ["Accept", "x-TRACE"])
        #expect(fields["X-Trace"] == "3")
        fields.remove("ACCEPT")
        #expect(fields.description == "x-TRACE: 3")
        #expect(fields.contains("accept") == false)
    }

    @Test("a name matches another only byte for byte, ignoring ASCII case alone", arguments: [
        ("Content-Type", "Content-Type", true), ("Content-Type", "content-TYPE", true), ("X-1_a", "x-1_A", true),
        ("Content-Type", "Content-Typ", false), ("Content-Type", "Content-Typf", false), ("Accept", "", false),
        // Equal as Swift strings (KELVIN SIGN is canonically "K"), different bytes: no match.
        ("K", "\u{212A}", false), ("A", "\u{00C0}", false),
        // Only A–Z fold: `^` (0x5E) is not `~` (0x7E).
        ("^", "~", false),
    ])
    func namesMatchByteForByte(name: String, other: String, matches: Bool) throws {
        let field = try HTTPField(name: name, value: "v")
        #expect(field.hasName(other) == matches)
        #expect(HTTPFields([field]).contains(other) == matches)
    }

    @Test("invalid names are rejected with an error naming the field", arguments: [
        ("Bad Name", HeaderValidationError.invalidName(name: "Bad Name", character: " ", offset: 3)),
        ("X:Colon", .invalidName(name: "X:Colon", character: ":", offset: 1)),
        ("Über", .invalidName(name: "Über", character: "Ü", offset: 0)),
        ("X\r\nInjected", .invalidName(name: "X\r\nInjected", character: "\r", offset: 1)),
        // Offsets count characters, not UTF-8 bytes ("é" and "Ü" are two each).
        ("Xé-Y", .invalidName(name: "Xé-Y", character: "é", offset: 1)),
        ("X-Ünicode Name", .invalidName(name: "X-Ünicode Name", character: "Ü", offset: 2)),
        ("", .emptyName),
    ])
    func invalidNames(name: String, expected: HeaderValidationError) {
        #expect(throws: expected) { try HTTPField(name: name, value: "v") }
    }

    @Test("values with CR, LF or NUL are rejected with an error naming the field", arguments: [
        ("a\rb", Unicode.Scalar("\r"), 1), ("ab\n", "\n", 2), ("\0", "\0", 0),
        // Offsets count characters, not UTF-8 bytes: "é" is two, "✓" three.
        ("é\r", "\r", 1), ("✓ ok\n", "\n", 4),
    ])
    func invalidValues(value: String, character: Unicode.Scalar, offset: Int) {
        #expect(throws: HeaderValidationError.invalidValue(name: "X-Custom", character: character, offset: offset)) {
            try HTTPField(name: "X-Custom", value: value)
        }
    }

    @Test("error messages say what is wrong, where, and what is valid, with controls made visible")
    func messages() {
        #expect(HeaderValidationError.invalidName(name: "Bad Name", character: " ", offset: 3).description
            == #"header name "Bad Name" is not a valid token: space at offset 3 is not allowed; use letters, digits and !#$%&'*+-.^_`|~ (RFC 9110 §5.6.2)"#)
        #expect(HeaderValidationError.invalidValue(name: "X-Custom", character: "\n", offset: 2).description
            == #"header "X-Custom" has an invalid value: LF (\n) at offset 2; CR, LF and NUL are not allowed"#)
        #expect(HeaderValidationError.invalidName(name: "\u{1B}]2;x", character: "\u{1B}", offset: 0).description.contains("\u{1B}") == false)
    }

    @Test("all token punctuation is accepted; tabs and other values are kept exactly")
    func validInput() throws {
        let field = try HTTPField(name: "!#$%&'*+-.^_`|~0aZ", value: " padded\tvalue ")
        #expect(field.value == " padded\tvalue ")
        // Any scalar but CR, LF and NUL, non-ASCII ones too.
        #expect(try HTTPField(name: "X-Note", value: "café ✓").value == "café ✓")
    }

    @Test("setting an invalid value leaves the fields unchanged")
    func failedSetChangesNothing() throws {
        var fields = try HTTPFields(["Authorization": "Bearer a"])
        #expect(throws: HeaderValidationError.self) { try fields.set("Authorization", "Bearer b\r\n") }
        #expect(fields["Authorization"] == "Bearer a")
    }

    @Test("equality is by content: a copy is equal, so is a list built apart; a changed copy, a case or an order is not")
    func equalityByContent() throws {
        let fields = try HTTPFields(["Accept": "application/json", "X-Trace": "1"])
        var copy = fields
        #expect(copy == fields)
        let builtApart = try HTTPFields(["Accept": "application/json", "X-Trace": "1"])
        #expect(builtApart == fields)
        #expect(Set([fields, builtApart]).count == 1)
        try copy.set("X-Trace", "2")
        #expect(copy != fields)
        copy.remove("X-Trace")
        #expect(copy != fields)
        #expect(try HTTPFields(["accept": "application/json", "X-Trace": "1"]) != fields)
        #expect(try HTTPFields(["X-Trace": "1", "Accept": "application/json"]) != fields)
        #expect(HTTPFields() == HTTPFields([]))
    }

    @Test("requests are equal when method, path and headers are: a copy, one built apart; a changed method, path or header is not")
    func requestEquality() throws {
        let request = HTTPRequest(method: .get, path: "/heroes/2001", headerFields: try HTTPFields(["Accept": "application/json"]))
        #expect(request == request)
        let builtApart = HTTPRequest(method: HTTPMethod("GET")!, path: "/heroes/" + "2001", headerFields: try HTTPFields(["Accept": "application/json"]))
        #expect(builtApart == request)
        #expect(builtApart.hashValue == request.hashValue)
        var changed = request
        changed.method = .post
        #expect(changed != request)
        changed = request
        changed.path = "/heroes/2002"
        #expect(changed != request)
        changed = request
        changed.headerFields.append(try HTTPField(name: "X-Trace", value: "1"))
        #expect(changed != request)
    }
}
