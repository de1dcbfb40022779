/// Parses each body chunk as one GraphQL JSON response (Apollo's
/// `JSONResponseParsingInterceptor`): one result per chunk, none for an empty body.
///
/// When the request writes results to the cache, each result carries the records its data
/// normalizes to (``GraphQLResponse/cacheRecords``), keyed with ``cacheSchema``; as upstream,
/// they are made here, from the result as the server sent it.
public struct JSONResponseParsingInterceptor: ResponseParsingInterceptor {
    /// The key fields and field types records are made with; the store they are written to
    /// should read with the same one.
    public var cacheSchema: CacheSchema

    public init(cacheSchema: CacheSchema = CacheSchema()) {
        self.cacheSchema = cacheSchema
    }

    public func parse(response: NetworkResponse, for request: GraphQLRequest) async throws -> InterceptorResultStream {
        // An operation whose selections cannot be read (a persisted-only one) gets no records.
        let normalizer = request.writeResultsToCache ? try? ResultNormalizer(operation: request.operation, schema: cacheSchema) : nil
        return response.chunks.map { chunk in
            var result = try GraphQLResponse(parsing: chunk, source: .server)
            if let normalizer, let data = result.data { result.cacheRecords = normalizer.records(for: data) }
            return result
        }
    }
}
