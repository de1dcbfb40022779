public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

// Apollo iOS 2.4's `HTTPResponse` and swift-http-types' share a name; in ChainKit they are
// one type. A response in a GraphQL chain's HTTP layer carries Apollo's members too: the
// `HTTPURLResponse`, the body chunks and `mapChunks`. Unlike Apollo's, the type is copyable,
// so its chunks can be asked for twice; the stream can still be read only once.
extension HTTPResponse {
    /// A response with its body arriving as `chunks` (Apollo's `HTTPResponse.init`).
    public init(response: HTTPURLResponse, chunks: consuming NonCopyableAsyncThrowingStream<Data>) {
        let fields = NetworkResponse(httpURLResponse: response, fallbackURL: nil).headerFields
        let status = (0...999).contains(response.statusCode) ? Status(code: response.statusCode) : Status(code: 0)
        self.init(
            status: status, headerFields: fields,
            chunked: ChunkedBody(url: response.url ?? URL(string: "about:blank")!, chunks: chunks.getStream()))
    }

    /// The response head as Foundation's `HTTPURLResponse` (Apollo's `response`).
    public var response: HTTPURLResponse {
        let url = chunked?.url ?? URL(string: "about:blank")!
        return HTTPURLResponse(url: url, statusCode: status.code, httpVersion: "HTTP/1.1", headerFields: headerFields.dictionary)!
    }

    /// The body as it arrives (Apollo's `chunks`): none for a middleware stack's response head.
    public var chunks: NonCopyableAsyncThrowingStream<Data> {
        NonCopyableAsyncThrowingStream(stream: chunked?.chunks ?? AsyncThrowingStream { nil })
    }

    /// The same response with every chunk passed through `transform` (Apollo's `mapChunks`).
    public func mapChunks(_ transform: @escaping @Sendable (HTTPURLResponse, Data) async throws -> Data) async -> HTTPResponse {
        let head = response
        let mapped = await chunks.map { chunk in try await transform(head, chunk) }
        return HTTPResponse(status: status, headerFields: headerFields, chunked: ChunkedBody(url: head.url ?? URL(string: "about:blank")!, chunks: mapped.getStream()))
    }

    /// The response as the engine's HTTP layer holds one.
    func networkResponse(for url: URL) -> NetworkResponse {
        NetworkResponse(status: status.code, headerFields: headerFields, url: chunked?.url ?? url, chunks: PullStream(chunks.getStream()))
    }
}

extension HTTPURLResponse {
    /// Whether the status is in 200...299 (Apollo's `isSuccessful`).
    public var isSuccessful: Bool { (200..<300).contains(statusCode) }
}
