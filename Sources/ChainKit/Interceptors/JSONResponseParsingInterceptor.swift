/// Parses each body chunk as one GraphQL JSON response (Apollo's
/// `JSONResponseParsingInterceptor`): one result per chunk, none for an empty body.
public struct JSONResponseParsingInterceptor: ResponseParsingInterceptor {
    public init() {}

    public func parse(response: NetworkResponse, for request: GraphQLRequest) async throws -> InterceptorResultStream {
        response.chunks.map { chunk in try GraphQLResponse(parsing: chunk, source: .server) }
    }
}
