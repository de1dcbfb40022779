import Backend
import ChainKit
import Foundation
import Outbound

extension RemoteHTTPClient {
    /// Sends `method` to `url` and returns the answer as a ``BackendResponse``, its body at
    /// most `limit` bytes.
    func exchange(url: URL, method: String, headers: HTTPFields, body: Data?, limit: Int) async throws -> BackendResponse {
        let (head, data) = try await fetch(Self.request(url: url, method: method, headers: headers, body: body), limit: limit)
        return BackendResponse(status: head.status.code, headers: head.headerFields, body: data)
    }
}
