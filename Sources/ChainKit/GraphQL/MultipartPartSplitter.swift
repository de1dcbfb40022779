public import Foundation

/// Cuts a `multipart/mixed` body into its parts as the bytes arrive, the way Apollo iOS
/// 2.4's `AsyncHTTPResponseChunkSequence` does for `URLSession` bytes: a part ends at
/// `CRLF--boundary`; the part's leading CRLF is dropped; what follows the closing
/// `--boundary--` is dropped; an empty part is no part.
///
/// ```swift
/// var splitter = MultipartPartSplitter(boundary: "graphql")
/// splitter.append(Data("\r\n--graphql\r\ncontent-type: application/json\r\n\r\n{\"da".utf8))   // []
/// splitter.append(Data("ta\":{}}\r\n--graphql--\r\n".utf8))
/// // ["content-type: application/json\r\n\r\n{\"data\":{}}"]
/// ```
///
/// One deliberate difference: a body that opens with `--boundary` without the CRLF before
/// it (RFC 2046 §5.1.1 allows it) has its first part kept; upstream finds no delimiter
/// there and drops that part.
public struct MultipartPartSplitter: Sendable {
    private let delimiter: [UInt8]
    private var buffer: [UInt8] = []
    /// Where the next search for the delimiter starts: earlier bytes cannot begin one.
    private var searchFrom = 0
    private var checkedOpening = false

    private static let crlf: [UInt8] = [0x0D, 0x0A]
    private static let dashes: [UInt8] = [0x2D, 0x2D]

    /// A splitter for parts separated by `boundary` (without its leading dashes).
    public init(boundary: String) {
        delimiter = Self.crlf + Self.dashes + Array(boundary.utf8)
    }

    /// Takes the next bytes of the body and returns the parts they complete, in order.
    public mutating func append(_ bytes: Data) -> [Data] {
        buffer.append(contentsOf: bytes)
        if !checkedOpening {
            let opening = delimiter.count - 2
            guard buffer.count >= opening else { return [] }
            checkedOpening = true
            if buffer[..<opening].elementsEqual(delimiter[2...]) { buffer.removeFirst(opening) }
        }
        var parts: [Data] = []
        while let start = firstDelimiter() {
            let part = Self.formatted(buffer[..<start])
            buffer.removeFirst(start + delimiter.count)
            searchFrom = 0
            if !part.isEmpty { parts.append(part) }
        }
        searchFrom = max(0, buffer.count - delimiter.count + 1)
        return parts
    }

    /// The part still held when the body ends, or nil when there is none.
    public mutating func finish() -> Data? {
        let part = Self.formatted(buffer[...])
        buffer.removeAll()
        searchFrom = 0
        return part.isEmpty ? nil : part
    }

    /// The bytes held back waiting for the rest of a part.
    public var bufferedByteCount: Int { buffer.count }

    private func firstDelimiter() -> Int? {
        guard buffer.count >= delimiter.count else { return nil }
        var index = searchFrom
        let last = buffer.count - delimiter.count
        while index <= last {
            if buffer[index] == delimiter[0], buffer[index..<(index + delimiter.count)].elementsEqual(delimiter) { return index }
            index += 1
        }
        return nil
    }

    /// A part as upstream hands it on: without its leading CRLF, and nothing at all when it
    /// is what follows the closing delimiter (`--`).
    private static func formatted(_ bytes: ArraySlice<UInt8>) -> Data {
        var part = bytes
        if part.starts(with: crlf) { part = part.dropFirst(2) }
        if part.starts(with: dashes) { return Data() }
        return Data(part)
    }
}

extension NetworkResponse {
    /// The same response with its body as multipart parts (one chunk per part, as they
    /// complete) when its `Content-Type` is `multipart/mixed` with a boundary; otherwise
    /// the whole body as one chunk (none when it is empty). What a transport that reads
    /// raw bytes hands the chain, as upstream's `URLSession.chunks(for:)` does.
    ///
    /// With a `limit`, no more than `limit` bytes are held at once: a part of a multipart
    /// answer, or the whole of any other, that grows past it fails the body with
    /// ``BodyLimitExceeded`` and the rest is not read. A multipart answer may be longer
    /// than `limit` in all (a subscription goes on for as long as the server sends).
    public func splittingBodyIntoParts(limit: Int = .max) -> NetworkResponse {
        var copy = self
        let raw = chunks
        let contentType = headerFields["Content-Type"]
        let boundary = MultipartContentType.isMultipartMixed(contentType) ? MultipartContentType(contentType).boundary : nil
        copy.chunks = PullStream {
            let iterator = raw.makeAsyncIterator()
            var splitter = boundary.map(MultipartPartSplitter.init(boundary:))
            var ready: [Data] = []
            var whole = Data()
            var ended = false
            // A part past the limit fails the body only once the parts that came complete
            // before it, in the same bytes, have been handed on.
            var failure: BodyLimitExceeded?
            return {
                while ready.isEmpty {
                    if let failure { throw failure }
                    guard !ended else { return nil }
                    if let bytes = try await iterator.next() {
                        if splitter != nil {
                            ready = splitter!.append(bytes)
                            if let tooLarge = ready.firstIndex(where: { $0.count > limit }) {
                                ready.removeSubrange(tooLarge...)
                                failure = BodyLimitExceeded(limit: limit, isPart: true)
                            } else if splitter!.bufferedByteCount > limit {
                                failure = BodyLimitExceeded(limit: limit, isPart: true)
                            }
                        } else {
                            whole.append(bytes)
                            if whole.count > limit { throw BodyLimitExceeded(limit: limit, isPart: false) }
                        }
                        continue
                    }
                    ended = true
                    if splitter != nil {
                        if let last = splitter!.finish() { ready = [last] }
                    } else if !whole.isEmpty {
                        ready = [whole]
                    }
                }
                return ready.removeFirst()
            }
        }
        return copy
    }
}

/// A body held more bytes at once than its reader allows: a part of a multipart answer
/// (`isPart`), or the whole of any other answer, passed `limit`.
public struct BodyLimitExceeded: Error, Sendable, Hashable, CustomStringConvertible {
    public let limit: Int
    public let isPart: Bool

    public init(limit: Int, isPart: Bool) {
        self.limit = limit
        self.isPart = isPart
    }

    public var description: String {
        isPart ? "a part of the answer is larger than \(limit) bytes" : "the answer is larger than \(limit) bytes"
    }
}
