public import Foundation
import Synchronization

/// A request or response body for the middleware stack (swift-openapi-runtime's shape).
///
/// A body knows whether it can be iterated more than once and whether its length is
/// known. Iterating a ``IterationBehavior/single`` body a second time throws
/// ``TooManyIterationsError``: a middleware that sends a request twice (a retry) must buffer
/// such a body first, for example with ``buffered(upTo:)``.
public final class HTTPBody: AsyncSequence, Sendable {
    public typealias Element = Data
    public typealias Failure = any Error

    /// How many times the body may be iterated.
    public enum IterationBehavior: String, Sendable, Hashable {
        case single
        case multiple
    }

    /// Whether the total byte count is known up front.
    public enum Length: Sendable, Hashable {
        case unknown
        case known(Int)
    }

    /// Thrown when a single-pass body is iterated again.
    public struct TooManyIterationsError: Error, Equatable, CustomStringConvertible {
        public init() {}
        public var description: String {
            "the body can be iterated only once and was already read; buffer it before sending it twice"
        }
    }

    /// Thrown when collecting a body longer than the allowed limit.
    public struct TooLargeError: Error, Equatable, CustomStringConvertible {
        public let limit: Int
        public var description: String { "the body is larger than the \(limit)-byte limit" }
    }

    public let iterationBehavior: IterationBehavior
    public let length: Length
    /// The whole body, for a body made from its bytes (`HTTPBody(data)`); nil for a
    /// streamed one. What reading it would give, without reading: an observer shows such a
    /// body as it is, with no iteration (`instrument.ns_per_event.middleware`).
    package let bytes: Data?
    private let source: ChunkStream
    private let iterated = Mutex(false)

    /// A body backed by a chunk stream.
    public init(chunks: ChunkStream, length: Length, iterationBehavior: IterationBehavior) {
        self.source = chunks
        self.length = length
        self.iterationBehavior = iterationBehavior
        self.bytes = nil
    }

    /// A replayable body holding `data`.
    public init(_ data: Data) {
        self.source = PullStream(data.isEmpty ? [] : [data])
        self.length = .known(data.count)
        self.iterationBehavior = .multiple
        self.bytes = data
    }

    /// A replayable body holding the UTF-8 bytes of `string`.
    public convenience init(_ string: String) {
        self.init(Data(string.utf8))
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: ChunkStream.AsyncIterator?
        let refusal: (any Error)?
        public mutating func next() async throws -> Data? {
            if let refusal { throw refusal }
            return try await base?.next()
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

    /// Reads the whole body, failing when it exceeds `limit` bytes.
    public func collect(upTo limit: Int) async throws -> Data {
        if case .known(let count) = length, count > limit { throw TooLargeError(limit: limit) }
        var data = Data()
        for try await chunk in self {
            guard data.count + chunk.count <= limit else { throw TooLargeError(limit: limit) }
            data.append(chunk)
        }
        return data
    }

    /// This body when it is already replayable; otherwise its bytes read into a new
    /// replayable body.
    public func buffered(upTo limit: Int) async throws -> HTTPBody {
        iterationBehavior == .multiple ? self : HTTPBody(try await collect(upTo: limit))
    }
}
