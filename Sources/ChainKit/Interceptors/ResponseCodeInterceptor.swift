public import Foundation

/// A non-2xx HTTP response (Apollo's `ResponseCodeInterceptor.ResponseCodeError`): the
/// response it came with and the body chunk that carried it.
public struct ResponseCodeError: Error, CustomStringConvertible {
    /// The response head (its chunk stream is not read again).
    public let response: NetworkResponse
    /// The body chunk that carried the failure, byte for byte.
    public let chunk: Data

    public init(response: NetworkResponse, chunk: Data) {
        self.response = response
        self.chunk = chunk
    }

    /// A failure with a response made from its parts (the lab's forced 401).
    public init(status: Int, headerFields: HTTPFields, url: URL, body: Data) {
        self.init(response: NetworkResponse(status: status, headerFields: headerFields, url: url, chunks: PullStream([])), chunk: body)
    }

    public var status: Int { response.status }
    public var headerFields: HTTPFields { response.headerFields }
    public var url: URL { response.url }
    /// The same bytes as ``chunk``.
    public var body: Data { chunk }

    /// The whole chunk read as one error object, as upstream reads it: a GraphQL response
    /// body becomes an error whose `message` is nil and whose members are `data`, `errors`…
    /// (read them with the subscript); nil when the chunk is not a JSON object.
    public var graphQLError: GraphQLError? {
        (try? JSONValue(parsing: chunk)).flatMap(GraphQLError.init(json:))
    }

    /// Upstream's description.
    public var description: String { "Received a \(status) error." }
}

/// Fails every body chunk of a non-2xx response with ``ResponseCodeError``
/// (Apollo's `ResponseCodeInterceptor`).
///
/// The error rides on the chunks, so a non-2xx response with an empty body has no chunk,
/// hence no error, and the chain ends in ``RequestChainError/noResults`` — as upstream does.
public struct ResponseCodeInterceptor: ChainHTTPInterceptor {
    public init() {}

    public func intercept(request: NetworkRequest, next: ChainHTTPNext) async throws -> NetworkResponse {
        let response = try await next(request)
        guard !response.isSuccess else { return response }
        return response.mapChunks { head, chunk in
            throw ResponseCodeError(response: head, chunk: chunk)
        }
    }
}
