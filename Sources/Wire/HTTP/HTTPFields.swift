import Vocabulary

/// One header line: a validated name and value.
///
/// The name must be an RFC 9110 token and the value must not contain CR, LF or NUL.
/// Invalid input is a thrown ``HeaderValidationError`` that names the field; nothing is
/// ever trimmed or replaced silently.
public struct HTTPField: Sendable, Hashable {
    /// The name exactly as it was written (case is preserved).
    public let name: String
    /// The value exactly as it was written.
    public let value: String

    /// Creates a field after validating both parts.
    public init(name: String, value: String) throws(HeaderValidationError) {
        try HTTPField.validate(name: name)
        try HTTPField.validate(value: value, forName: name)
        self.name = name
        self.value = value
    }

    /// A field from a name known to be a token and a value known to be valid.
    init(validName: String, value: String) {
        self.name = validName
        self.value = value
    }

    /// Whether `other` names the same field, ignoring ASCII case.
    public func hasName(_ other: String) -> Bool {
        HTTPField.namesMatch(name, other)
    }

    static func namesMatch(_ a: String, _ b: String) -> Bool {
        // Lengths first (stored for native strings): most names differ there. Then the same
        // spelling, which `==` tells at once for short names (compared as two words). `==` is
        // canonical equivalence, not byte equality, but `a` is a field's name, an ASCII token
        // (`validate(name:)`), and no other string of as many UTF-8 bytes is equivalent to one.
        guard a.utf8.count == b.utf8.count else { return false }
        if a == b { return true }
        // Compared as contiguous bytes: zipping the two UTF-8 views steps each through its
        // generic iterator, many times the cost of the loop.
        var a = a, b = b
        return a.withUTF8 { a in b.withUTF8 { b in bytesMatch(a, b) } }
    }

    private static func bytesMatch(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        for index in a.indices where a[index] != b[index] && asciiLower(a[index]) != asciiLower(b[index]) {
            return false
        }
        return true
    }

    private static func asciiLower(_ byte: UInt8) -> UInt8 {
        (byte >= 65 && byte <= 90) ? byte + 32 : byte
    }

    /// Checks that `name` is an RFC 9110 `token` (§5.6.2).
    public static func validate(name: String) throws(HeaderValidationError) {
        guard !name.isEmpty else { throw .emptyName }
        // A token is ASCII, one byte a character: its UTF-8 bytes are told in a plain loop. The
        // scalars are walked only to say where a bad name goes wrong.
        if allBytes(of: name, satisfy: HTTPSyntax.isTokenByte) { return }
        for (offset, scalar) in name.unicodeScalars.enumerated() where !HTTPSyntax.isTokenCharacter(scalar) {
            throw .invalidName(name: name, character: scalar, offset: offset)
        }
    }

    /// Checks that `value` has no CR, LF or NUL.
    public static func validate(value: String, forName name: String) throws(HeaderValidationError) {
        // CR, LF and NUL are ASCII, and no byte of a longer UTF-8 sequence is below 0x80, so a
        // value without those bytes has none of those scalars.
        if allBytes(of: value, satisfy: { $0 != HTTPSyntax.cr && $0 != HTTPSyntax.lf && $0 != 0 }) { return }
        for (offset, scalar) in value.unicodeScalars.enumerated() where scalar == "\r" || scalar == "\n" || scalar == "\0" {
            throw .invalidValue(name: name, character: scalar, offset: offset)
        }
    }

    /// Whether every UTF-8 byte of `text` satisfies `test`; false also when the string keeps no
    /// contiguous UTF-8 (a bridged one), which its caller then checks scalar by scalar.
    @inline(__always)
    private static func allBytes(of text: String, satisfy test: (UInt8) -> Bool) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(test) } ?? false
    }
}

/// Why a header name or value was refused.
public enum HeaderValidationError: Error, Equatable, CustomStringConvertible {
    case emptyName
    case invalidName(name: String, character: Unicode.Scalar, offset: Int)
    case invalidValue(name: String, character: Unicode.Scalar, offset: Int)

    /// The name of the field the error is about ("" for an empty name).
    public var fieldName: String {
        switch self {
        case .emptyName: ""
        case .invalidName(let name, _, _), .invalidValue(let name, _, _): name
        }
    }

    public var description: String {
        switch self {
        case .emptyName:
            return "header name is empty; a name must be a token of letters, digits and !#$%&'*+-.^_`|~"
        case .invalidName(let name, let character, let offset):
            return "header name \"\(VisibleEscapes.escape(name))\" is not a valid token: "
                + "\(VisibleEscapes.describe(character)) at offset \(offset) is not allowed; "
                + "use letters, digits and !#$%&'*+-.^_`|~ (RFC 9110 §5.6.2)"
        case .invalidValue(let name, let character, let offset):
            return "header \"\(VisibleEscapes.escape(name))\" has an invalid value: "
                + "\(VisibleEscapes.describe(character)) at offset \(offset); CR, LF and NUL are not allowed"
        }
    }
}

/// An ordered list of header fields: names compare case-insensitively, keep their case,
/// and may repeat.
///
/// ```swift
/// var fields = try HTTPFields(["Accept": "application/json"])
/// try fields.set("authorization", "Bearer abc")
/// fields["AUTHORIZATION"] // "Bearer abc"
/// ```
public struct HTTPFields: Sendable, Hashable, RandomAccessCollection, CustomStringConvertible {
    // Read by `isIdentical(to:)` and `==`, which are inlined where they are called.
    @usableFromInline var storage: [HTTPField]

    /// An empty list.
    public init() { storage = [] }

    /// A list with these fields, in order.
    public init(_ fields: [HTTPField]) { storage = fields }

    /// Whether `other` is a copy of this list, neither changed since: the same storage. An
    /// array is one reference to its storage, which holds its count and elements; equal
    /// words are the same storage, kept alive by both lists while they are compared.
    @inlinable package func isIdentical(to other: HTTPFields) -> Bool {
        // Where an array is more than that one word, every list is told by its fields.
        guard MemoryLayout<[HTTPField]>.size == MemoryLayout<UInt>.size else { return false }
        return withUnsafeBytes(of: storage) { $0.load(as: UInt.self) } == withUnsafeBytes(of: other.storage) { $0.load(as: UInt.self) }
    }

    /// Whether the two lists hold the same fields in the same order. A list handed on is
    /// told by its storage where it is compared, without a call: most hops hand headers on
    /// as they got them, and the snapshots and header diffs of every event compare them.
    @inlinable public static func == (lhs: HTTPFields, rhs: HTTPFields) -> Bool {
        lhs.isIdentical(to: rhs) || lhs.storage == rhs.storage
    }

    /// A list built from name/value pairs in order; throws on the first invalid pair.
    public init(_ pairs: KeyValuePairs<String, String>) throws(HeaderValidationError) {
        // Sized up front: a list grown one field at a time keeps up to twice the room it
        // needs for as long as a timeline snapshot holds it.
        storage = []
        storage.reserveCapacity(pairs.count)
        for (name, value) in pairs { try append(name, value) }
    }

    /// A list built from name/value pairs in order; throws on the first invalid pair.
    public init(pairs: [(String, String)]) throws(HeaderValidationError) {
        storage = []
        storage.reserveCapacity(pairs.count)
        for (name, value) in pairs { try append(name, value) }
    }

    public var startIndex: Int { storage.startIndex }
    public var endIndex: Int { storage.endIndex }
    public subscript(position: Int) -> HTTPField { storage[position] }

    /// The values for `name`, joined with ", ", or nil when absent.
    public subscript(name: String) -> String? {
        let values = self.values(for: name)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    /// Every value for `name`, in order.
    public func values(for name: String) -> [String] {
        storage.filter { $0.hasName(name) }.map(\.value)
    }

    /// Whether a field with this name is present.
    public func contains(_ name: String) -> Bool {
        storage.contains { $0.hasName(name) }
    }

    /// Adds a field at the end.
    public mutating func append(_ name: String, _ value: String) throws(HeaderValidationError) {
        storage.append(try HTTPField(name: name, value: value))
    }

    /// Adds a validated field at the end.
    public mutating func append(_ field: HTTPField) {
        storage.append(field)
    }

    /// Replaces every field named `name` with one field holding `value`, at the position of
    /// the first one (or at the end when absent).
    public mutating func set(_ name: String, _ value: String) throws(HeaderValidationError) {
        let field = try HTTPField(name: name, value: value)
        if let first = storage.firstIndex(where: { $0.hasName(name) }) {
            storage[first] = field
            var index = storage.index(after: first)
            while index < storage.endIndex {
                if storage[index].hasName(name) { storage.remove(at: index) } else { index += 1 }
            }
        } else {
            storage.append(field)
        }
    }

    /// Removes every field named `name`.
    public mutating func remove(_ name: String) {
        storage.removeAll { $0.hasName(name) }
    }

    /// `Name: value` lines.
    public var description: String {
        storage.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }
}
