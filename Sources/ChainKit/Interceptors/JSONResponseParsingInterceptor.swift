/// Parses the body into GraphQL results (Apollo's `JSONResponseParsingInterceptor`): one
/// result per chunk, none for an empty body.
///
/// A `multipart/mixed` answer arrives one part per chunk (see
/// ``NetworkResponse/splittingBodyIntoParts()``) and each part is read by the parser its
/// `Content-Type` names: `deferSpec=20220824` (``MultipartResponseDeferParser``) or
/// `subscriptionSpec=1.0` (``MultipartResponseSubscriptionParser``). As upstream's
/// `JSONResponseParser` does, an `incremental` part is merged into the result before it
/// and yielded whole, a part with nothing to act on (a heartbeat) yields nothing, and a
/// missing boundary or unknown specification fails when the first part is read.
///
/// Each result's data is checked against the operation's selections as upstream's executor
/// checks it (``ResultNormalizer/execute(_:)``): a field asked for and absent, or `null` where
/// ``cacheSchema`` says the field is non-null, fails the stream with a
/// ``GraphQLExecutionError`` naming its path.
///
/// When the request writes results to the cache, each result carries the records its data
/// normalizes to (``ChainResponse/cacheRecords``), keyed with ``cacheSchema``; as upstream,
/// they are made here, from the result as the server sent it (a merged result's from all of
/// its data so far).
public struct JSONResponseParsingInterceptor: ChainResponseParser {
    /// The key fields and field types records are made with (the store they are written to
    /// should read with the same one), and the non-null fields results are checked against.
    public var cacheSchema: CacheSchema

    public init(cacheSchema: CacheSchema = CacheSchema()) {
        self.cacheSchema = cacheSchema
    }

    public func parse(response: NetworkResponse, for request: ChainRequest) async throws -> ChainResultStream {
        // An operation whose selections cannot be read (a persisted-only one) is neither
        // checked nor gets records.
        let normalizer = try? ResultNormalizer(operation: request.operation, schema: cacheSchema)
        let writesRecords = request.writeResultsToCache
        @Sendable func executed(_ result: ChainResponse) throws -> ChainResponse {
            guard let normalizer, let data = result.data else { return result }
            if case .object(let members) = data { try normalizer.execute(members) }
            guard writesRecords else { return result }
            var result = result
            result.cacheRecords = normalizer.records(for: data)
            return result
        }
        let contentType = response.headerFields["Content-Type"]
        guard MultipartContentType.isMultipartMixed(contentType) else {
            return response.chunks.map { chunk in try executed(try ChainResponse(parsing: chunk, source: .server)) }
        }
        let header = MultipartContentType(contentType)
        let chunks = response.chunks
        return PullStream {
            let parts = chunks.makeAsyncIterator()
            var current: ChainResponse?
            return {
                while let part = try await parts.next() {
                    guard header.boundary != nil else { throw JSONResponseParsingError.missingMultipartBoundary }
                    let payload: [String: JSONValue]?
                    switch header.specification {
                    case MultipartResponseDeferParser.specification: payload = try MultipartResponseDeferParser.parse(part: part)
                    case MultipartResponseSubscriptionParser.specification: payload = try MultipartResponseSubscriptionParser.parse(part: part)
                    default: throw JSONResponseParsingError.invalidMultipartProtocol
                    }
                    guard let payload else { continue }
                    try Task.checkCancellation()
                    if let items = payload["incremental"]?.arrayValue {
                        guard let existing = current else { throw IncrementalResponseError.missingExistingData }
                        current = try executed(try existing.merging(incremental: items))
                    } else {
                        current = try executed(ChainResponse(payload: payload, source: .server))
                    }
                    return current
                }
                return nil
            }
        }
    }
}
