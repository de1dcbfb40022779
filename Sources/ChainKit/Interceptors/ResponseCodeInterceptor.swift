public import Foundation

/// A non-2xx HTTP response, with its body and the GraphQL error in it when there is one.
public struct ResponseCodeError: Error, CustomStringConvertible {
    public let status: Int
    public let headerFields: HTTPFields
    public let url: URL
    /// The body chunk that carried the failure, byte for byte.
    public let body: Data
    /// The first GraphQL error when the body is a GraphQL JSON response; nil otherwise.
    public let graphQLError: GraphQLError?

    public init(status: Int, headerFields: HTTPFields, url: URL, body: Data) {
        self.status = status
        self.headerFields = headerFields
        self.url = url
        self.body = body
        self.graphQLError = (try? JSONValue(parsing: body))?["errors"]?[0].flatMap(GraphQLError.init(json:))
    }

    public var description: String {
        let detail = graphQLError.map { ": \($0)" } ?? ""
        return "HTTP \(status) from \(url.absoluteString) (ResponseCodeError)\(detail)"
    }
}

/// Fails every body chunk of a non-2xx response with ``ResponseCodeError``
/// (Apollo's `ResponseCodeInterceptor`).
///
/// The error rides on the chunks, so a non-2xx response with an empty body has no chunk,
/// hence no error, and the chain ends in ``RequestChainError/noResults`` — as upstream does.
public struct ResponseCodeInterceptor: HTTPInterceptor {
    public init() {}

    public func intercept(request: NetworkRequest, next: HTTPNext) async throws -> NetworkResponse {
        let response = try await next(request)
        guard !response.isSuccess else { return response }
        return response.mapChunks { head, chunk in
            throw ResponseCodeError(status: head.status, headerFields: head.headerFields, url: head.url, body: chunk)
        }
    }
}
