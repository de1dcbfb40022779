public import Foundation

/// The client a generated OpenAPI client sends through (swift-openapi-runtime's
/// `UniversalClient`): a server URL, a transport and the middlewares in front of it.
///
/// ```swift
/// let client = UniversalClient(
///     serverURL: URL(string: "http://127.0.0.1:8080")!,
///     transport: URLSessionTransport(),
///     middlewares: [AuthenticationMiddleware(authorizationHeaderFieldValue: "Bearer abc")])
/// let pet = try await client.send(
///     input: petID, forOperation: "getPet",
///     serializer: { id in (HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/pets/\(id)"), nil) },
///     deserializer: { response, body in try await String(collecting: body!, upTo: 1 << 20) })
/// ```
///
/// Each call runs the four phases of ``MiddlewareStack/send(input:forOperation:baseURL:serializer:deserializer:)``,
/// and every failure is a ``ClientError``.
public struct UniversalClient: Sendable {
    /// The base URL of every request.
    public let serverURL: URL
    public var transport: any ClientTransport
    public var middlewares: [any ClientMiddleware]

    public init(serverURL: URL = .defaultOpenAPIServerURL, transport: any ClientTransport, middlewares: [any ClientMiddleware] = []) {
        self.serverURL = serverURL
        self.transport = transport
        self.middlewares = middlewares
    }

    /// Turns `input` into a request, sends it through the middlewares and the transport, and
    /// turns the response into the output.
    ///
    /// - Throws: ``ClientError``, filled with what was known when the phase failed.
    public func send<OperationInput: Sendable, OperationOutput: Sendable>(
        input: OperationInput,
        forOperation operationID: String,
        serializer: @Sendable (OperationInput) throws -> (HTTPRequest, HTTPBody?),
        deserializer: @Sendable (HTTPResponse, HTTPBody?) async throws -> OperationOutput
    ) async throws -> OperationOutput {
        try await MiddlewareStack(middlewares: middlewares, transport: transport).send(
            input: input, forOperation: operationID, baseURL: serverURL, serializer: serializer, deserializer: deserializer)
    }
}

extension URL {
    /// The server URL a client uses when none is given: `/`, so requests keep their paths.
    public static let defaultOpenAPIServerURL = URL(string: "/")!
}
