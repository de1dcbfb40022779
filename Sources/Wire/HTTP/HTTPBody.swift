public import Foundation
import Synchronization

/// How many times a body's bytes can be read (swift-openapi-runtime's `IterationBehavior`).
public enum IterationBehavior: Sendable, Hashable {
    /// Once: a second read fails. A middleware that sends such a body twice (a retry) must
    /// buffer it first.
    case single
    /// Any number of times, each read giving the same bytes.
    case multiple
}

/// A request or response body for the middleware stack (swift-openapi-runtime's `HTTPBody`):
/// an async sequence of byte chunks that knows whether it can be read more than once and
/// whether its length is known.
///
/// ```swift
/// let body = HTTPBody("{\"name\":\"Rex\"}")
/// let bytes = try await Data(collecting: body, upTo: 1024 * 1024)
/// ```
///
/// Reading a ``IterationBehavior/single`` body a second time fails with upstream's error
/// ("…attempted to create a second iterator…").
public final class HTTPBody: AsyncSequence, Sendable, Hashable {
    /// One piece of the body.
    public typealias ByteChunk = ArraySlice<UInt8>
    public typealias Element = ByteChunk
    public typealias Failure = any Error

    /// Whether the total byte count is known up front.
    public enum Length: Sendable, Hashable {
        case unknown
        case known(Int64)
    }

    public let iterationBehavior: IterationBehavior
    public let length: Length
    /// The whole body, for a body made from its bytes; nil for a streamed one. What reading
    /// it would give, without reading: an observer shows such a body as it is.
    package let bytes: Data?
    private let source: ChunkStream
    private let iterated = Mutex(false)

    /// A body over a stream of `Data` chunks, as ChainKit's transports read them.
    package init(chunks: ChunkStream, length: Length, iterationBehavior: IterationBehavior) {
        self.source = chunks
        self.length = length
        self.iterationBehavior = iterationBehavior
        self.bytes = nil
    }

    private init(wholeBody data: Data, length: Length) {
        self.source = PullStream(data.isEmpty ? [] : [data])
        self.length = length
        self.iterationBehavior = .multiple
        self.bytes = data
    }

    /// An empty body.
    public convenience init() { self.init(wholeBody: Data(), length: .known(0)) }

    /// A body holding `bytes`, readable any number of times.
    public convenience init(_ bytes: ByteChunk, length: Length) { self.init(wholeBody: Data(bytes), length: length) }

    /// A body holding `bytes`, readable any number of times.
    public convenience init(_ bytes: ByteChunk) { self.init(bytes, length: .known(Int64(bytes.count))) }

    /// A body holding `bytes`.
    public convenience init(_ bytes: some Sequence<UInt8> & Sendable, length: Length, iterationBehavior: IterationBehavior) {
        let data = Data(bytes)
        if iterationBehavior == .multiple {
            self.init(wholeBody: data, length: length)
        } else {
            self.init(chunks: PullStream(data.isEmpty ? [] : [data]), length: length, iterationBehavior: .single)
        }
    }

    /// A body holding `bytes`, readable any number of times.
    public convenience init(_ bytes: some Collection<UInt8> & Sendable, length: Length) {
        self.init(wholeBody: Data(bytes), length: length)
    }

    /// A body holding `bytes`, readable any number of times.
    public convenience init(_ bytes: some Collection<UInt8> & Sendable) {
        self.init(bytes, length: .known(Int64(bytes.count)))
    }

    /// A body holding `bytes`, readable any number of times.
    public convenience init(_ bytes: [UInt8]) { self.init(bytes[...]) }

    /// A body holding `data`, readable any number of times.
    public convenience init(_ data: Data) { self.init(wholeBody: data, length: .known(Int64(data.count))) }

    /// A body holding the UTF-8 bytes of `string`, readable any number of times.
    public convenience init(_ string: some StringProtocol & Sendable, length: Length) {
        self.init(wholeBody: Data(string.utf8), length: length)
    }

    /// A body holding the UTF-8 bytes of `string`, readable any number of times.
    public convenience init(_ string: some StringProtocol & Sendable) {
        let data = Data(string.utf8)
        self.init(wholeBody: data, length: .known(Int64(data.count)))
    }

    /// A body read once from `stream`.
    public convenience init(_ stream: AsyncThrowingStream<ByteChunk, any Error>, length: Length) {
        self.init(stream, length: length, iterationBehavior: .single)
    }

    /// A body read once from `stream`.
    public convenience init(_ stream: AsyncStream<ByteChunk>, length: Length) {
        self.init(stream, length: length, iterationBehavior: .single)
    }

    /// A body read from `sequence`: once, or again from the start for each reader when
    /// `iterationBehavior` is ``IterationBehavior/multiple``.
    public convenience init<Bytes: AsyncSequence & Sendable>(
        _ sequence: Bytes, length: Length, iterationBehavior: IterationBehavior
    ) where Bytes.Element == ByteChunk {
        self.init(chunks: Self.dataChunks(of: sequence), length: length, iterationBehavior: iterationBehavior)
    }

    /// A body read from `sequence`, whose elements are runs of bytes.
    public convenience init<Bytes: AsyncSequence & Sendable>(
        _ sequence: Bytes, length: Length, iterationBehavior: IterationBehavior
    ) where Bytes.Element: Sequence & Sendable, Bytes.Element.Element == UInt8 {
        self.init(chunks: Self.dataChunks(of: sequence), length: length, iterationBehavior: iterationBehavior)
    }

    private static func dataChunks<Bytes: AsyncSequence & Sendable>(of sequence: Bytes) -> ChunkStream
    where Bytes.Element: Sequence, Bytes.Element.Element == UInt8 {
        PullStream {
            var iterator = sequence.makeAsyncIterator()
            return { try await iterator.next().map { Data($0) } }
        }
    }

    public static func == (lhs: HTTPBody, rhs: HTTPBody) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// Thrown when a single-pass body is read again.
    package struct TooManyIterationsError: Error, Equatable, CustomStringConvertible, LocalizedError {
        package init() {}
        package var description: String {
            "OpenAPIRuntime.HTTPBody attempted to create a second iterator, but the underlying sequence is only safe to be iterated once."
        }
        package var errorDescription: String? { description }
    }

    /// Thrown when collecting a body longer than the allowed limit.
    package struct TooManyBytesError: Error, Equatable, CustomStringConvertible, LocalizedError {
        package let maxBytes: Int
        package var description: String { "OpenAPIRuntime.HTTPBody contains more than the maximum allowed \(maxBytes) bytes." }
        package var errorDescription: String? { description }
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: ChunkStream.AsyncIterator?
        let refusal: (any Error)?
        public mutating func next() async throws -> ByteChunk? {
            if let refusal { throw refusal }
            return try await base?.next().map { ByteChunk($0) }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        let alreadyIterated = iterated.withLock { flag in
            defer { flag = true }
            return flag
        }
        if alreadyIterated && iterationBehavior == .single {
            return AsyncIterator(base: nil, refusal: TooManyIterationsError())
        }
        return AsyncIterator(base: source.makeAsyncIterator(), refusal: nil)
    }

    /// Reads the whole body, failing when it holds more than `limit` bytes.
    package func collect(upTo limit: Int) async throws -> Data {
        if let bytes {
            guard bytes.count <= limit else { throw TooManyBytesError(maxBytes: limit) }
            if iterationBehavior == .multiple { return bytes }
        }
        if case .known(let count) = length, count > limit { throw TooManyBytesError(maxBytes: limit) }
        var data = Data()
        var iterator = makeAsyncIterator()
        while let chunk = try await iterator.next() {
            guard data.count + chunk.count <= limit else { throw TooManyBytesError(maxBytes: limit) }
            data.append(contentsOf: chunk)
        }
        return data
    }

    /// This body when it is already replayable; otherwise its bytes read into a new
    /// replayable body.
    public func buffered(upTo limit: Int) async throws -> HTTPBody {
        iterationBehavior == .multiple ? self : HTTPBody(try await collect(upTo: limit))
    }
}

extension HTTPBody: ExpressibleByStringLiteral, ExpressibleByArrayLiteral {
    public convenience init(stringLiteral value: String) { self.init(value) }
    public convenience init(arrayLiteral elements: UInt8...) { self.init(elements) }
}

extension HTTPBody.ByteChunk {
    /// The whole body, failing when it holds more than `maxBytes` bytes.
    public init(collecting body: HTTPBody, upTo maxBytes: Int) async throws {
        self = ArraySlice(try await body.collect(upTo: maxBytes))
    }
}

extension Array where Element == UInt8 {
    /// The whole body, failing when it holds more than `maxBytes` bytes.
    public init(collecting body: HTTPBody, upTo maxBytes: Int) async throws {
        self = Array(try await body.collect(upTo: maxBytes))
    }
}

extension Data {
    /// The whole body, failing when it holds more than `maxBytes` bytes.
    public init(collecting body: HTTPBody, upTo maxBytes: Int) async throws {
        self = try await body.collect(upTo: maxBytes)
    }
}

extension String {
    /// The whole body decoded as UTF-8, failing when it holds more than `maxBytes` bytes.
    public init(collecting body: HTTPBody, upTo maxBytes: Int) async throws {
        self = String(decoding: try await body.collect(upTo: maxBytes), as: UTF8.self)
    }
}
