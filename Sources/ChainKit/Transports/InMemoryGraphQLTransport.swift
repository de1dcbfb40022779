import Foundation

/// A GraphQL transport answered by a closure, for tests and the in-process lab.
///
/// ```swift
/// let transport = InMemoryGraphQLTransport.respond(status: 200, body: #"{"data":{"hero":null}}"#)
/// ```
public struct InMemoryGraphQLTransport: GraphQLTransport {
    public let handler: @Sendable (NetworkRequest) async throws -> NetworkResponse

    public init(_ handler: @escaping @Sendable (NetworkRequest) async throws -> NetworkResponse) {
        self.handler = handler
    }

    // Inlined into the conformance's witness, which would otherwise call it in an async frame of its own.
    @inline(__always)
    public func send(_ request: NetworkRequest) async throws -> NetworkResponse {
        try await handler(request)
    }
}

extension GraphQLTransport where Self == InMemoryGraphQLTransport {
    /// Answers every request with `status` and `body` (an empty body sends no chunk).
    public static func respond(status: Int, body: String, headers: HTTPFields = HTTPFields()) -> InMemoryGraphQLTransport {
        InMemoryGraphQLTransport { request in
            NetworkResponse(status: status, headerFields: headers, url: request.url, body: Data(body.utf8))
        }
    }

    /// Fails every request with `error`.
    public static func failing(_ error: any Error & Sendable) -> InMemoryGraphQLTransport {
        InMemoryGraphQLTransport { _ in throw error }
    }
}
