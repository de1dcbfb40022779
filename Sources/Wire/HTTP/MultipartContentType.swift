/// The parts of a response's `Content-Type` that matter for a multipart answer: the
/// multipart subtype, the boundary and the incremental-delivery specification
/// (`deferSpec=20220824` or `subscriptionSpec=1.0`), read as Apollo iOS 2.4's
/// `HTTPURLResponse+MultipartHeaderComponents.swift` reads them.
///
/// ```swift
/// let type = MultipartContentType("multipart/mixed;boundary=\"graphql\";deferSpec=20220824")
/// // type.subtype == "mixed", type.boundary == "graphql", type.specification == "deferSpec=20220824"
/// ```
public struct MultipartContentType: Sendable, Hashable {
    /// What follows `multipart/` ("mixed"); nil when the value names no multipart type.
    public var subtype: String?
    /// The boundary, without surrounding quotes; nil when absent.
    public var boundary: String?
    /// The first directive holding `Spec=` (`deferSpec=20220824`); nil when absent.
    public var specification: String?

    public init(subtype: String?, boundary: String?, specification: String?) {
        self.subtype = subtype
        self.boundary = boundary
        self.specification = specification
    }

    /// Reads a `Content-Type` value; every part is nil when `value` is nil.
    public init(_ value: String?) {
        self.init(subtype: nil, boundary: nil, specification: nil)
        guard let value else { return }
        for piece in value.split(separator: ";", omittingEmptySubsequences: false) {
            let directive = piece.trimmingSpacesAndTabs
            if directive.hasPrefix("multipart/") {
                subtype = String(directive.dropFirst("multipart/".count))
            } else if directive.hasPrefix("boundary=") {
                var quoted = directive.dropFirst("boundary=".count)
                if quoted.hasPrefix("\"") { quoted = quoted.dropFirst() }
                if quoted.hasSuffix("\"") { quoted = quoted.dropLast() }
                boundary = String(quoted)
            } else if directive.contains("Spec=") {
                specification = String(directive)
            }
        }
    }

    /// Whether the value holds `multipart/mixed`, the test upstream's `isMultipart` makes.
    /// Every response the chain parses asks it, so it scans the bytes itself: `String`'s
    /// `contains` costs more than the rest of an instrumented exchange's transport hop
    /// (`chain.instrumented.5`).
    public static func isMultipartMixed(_ value: String?) -> Bool {
        guard let value, value.utf8.count >= multipartMixed.utf8CodeUnitCount else { return false }
        // Read in place where the string is contiguous (a native one always is): `withUTF8`
        // needs a copy of it to call on, which retains it.
        if let found = value.utf8.withContiguousStorageIfAvailable(holdsMultipartMixed) { return found }
        var copy = value
        return copy.withUTF8(holdsMultipartMixed)
    }

    private static func holdsMultipartMixed(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let needle = UnsafeBufferPointer(start: multipartMixed.utf8Start, count: multipartMixed.utf8CodeUnitCount)
        guard bytes.count >= needle.count else { return false }
        for start in 0...(bytes.count - needle.count) where bytes[start] == needle[0] {
            var offset = 1
            while offset < needle.count && bytes[start + offset] == needle[offset] { offset += 1 }
            if offset == needle.count { return true }
        }
        return false
    }

    /// Whether the `Content-Type` of `fields` is `multipart/mixed`: ``isMultipartMixed(_:)`` of
    /// `fields["Content-Type"]`, asked of each `Content-Type` field in turn instead of their
    /// values joined (the type has no ", " in it, so it cannot span two of them), which saves
    /// building that string for every response.
    package static func isMultipartMixed(_ fields: HTTPFields) -> Bool {
        fields.contains { $0.hasName("Content-Type") && isMultipartMixed($0.value) }
    }

    private static let multipartMixed: StaticString = "multipart/mixed"
}

extension Substring {
    fileprivate var trimmingSpacesAndTabs: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}
