import ChainKit
import Foundation
import Timeline

extension HopSnapshot {
    /// A GraphQL request as GraphQL hops see it: the method and endpoint it will use, the
    /// headers interceptors add (`additionalHeaders`), which is what they change, and the
    /// body it would send (operation name, document, variables, extensions), encoded only
    /// when somebody reads it.
    convenience init(graphQL request: ChainRequest) {
        let body = BodyPreview(deferred: { JSONValue.object(request.body).encoded })
        self.init(method: request.usesGET ? "GET" : "POST", url: request.graphQLEndpoint.absoluteString, headers: request.additionalHeaders, body: body)
    }

    /// A GraphQL result: its first error and its JSON. A result read from a body, unchanged
    /// since, shows that body as it came: small, decoded when somebody reads it (keeping the
    /// bytes, not the parsed result); large, its bounded start now, with the body itself kept
    /// by reference for exports. Any other result shows its JSON, encoded when read if small,
    /// now if large, so the timeline keeps bytes rather than the whole parsed result.
    convenience init(result: ChainResponse) {
        let small = result.isSmall(limit: BodyPreview.defaultLimit)
        let body: BodyPreview
        if let received = result.body {
            body = small ? BodyPreview(deferred: { received }) : BodyPreview(received)
        } else {
            body = small ? BodyPreview(deferred: { result.json.encoded }) : BodyPreview(result.json.encoded)
        }
        self.init(error: result.errors?.first?.summary, body: body)
    }

    /// Records written to the cache, as one JSON object of key → fields (a reference to
    /// another record as `{"$reference": key}`), encoded when somebody reads it.
    convenience init(cacheRecords records: RecordSet) {
        self.init(body: BodyPreview(deferred: { records.json.encoded }))
    }

    /// An error passing a hop.
    package convenience init(error: any Error) {
        self.init(error: describe(error))
    }

    /// A response head, or the error that came instead.
    convenience init(outcome: Result<NetworkResponse, any Error>) {
        switch outcome {
        case .success(let response): self.init(response: response)
        case .failure(let error): self.init(error: error)
        }
    }

    /// A middleware's response head (without its body stream), or the error that came instead.
    convenience init(outcome: Result<MiddlewareAnswer, any Error>) {
        switch outcome {
        case .success(let answer): self.init(answer.head)
        case .failure(let error): self.init(error: error)
        }
    }

    /// A response head in the GraphQL HTTP layer, with its body when it is at hand.
    convenience init(response: NetworkResponse, body: Data? = nil) {
        self.init(headers: response.headerFields, status: response.status, body: body.map { BodyPreview($0) })
    }
}

/// An error as the timeline shows it: its type, then its message.
package func describe(_ error: any Error) -> String {
    let type = String(describing: Swift.type(of: error))
    let message = String(describing: error)
    return message.hasPrefix(type) ? message : "\(type): \(message)"
}
