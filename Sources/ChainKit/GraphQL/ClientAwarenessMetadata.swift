/// What a client tells GraphOS about itself (Apollo iOS 2.x's `ClientAwarenessMetadata`):
/// the `apollographql-client-name` / `apollographql-client-version` headers, and the
/// `extensions.clientLibrary` member of the body naming the Apollo iOS library.
///
/// Upstream takes it from the `ApolloClient` that started the request; a request sent
/// without a client sends none of it. In ChainKit it rides on the request
/// (``ChainRequest/clientAwareness``); nil is "no client", which is the default.
///
/// ```swift
/// var request = ChainRequest(operation: hero, graphQLEndpoint: url)
/// request.clientAwareness = ClientAwarenessMetadata(clientApplicationName: "MyApp", clientApplicationVersion: "3.1")
/// ```
public struct ClientAwarenessMetadata: Sendable, Hashable {
    /// Sent as `apollographql-client-name` when set.
    public var clientApplicationName: String?
    /// Sent as `apollographql-client-version` when set.
    public var clientApplicationVersion: String?
    /// Whether the body carries `extensions.clientLibrary` {name, version}.
    public var includeApolloLibraryAwareness: Bool

    /// The library name and version an app built on Apollo iOS 2.4 reports, which is the
    /// behaviour ChainKit reproduces.
    public static let libraryName = "apollo-ios"
    public static let libraryVersion = "2.4.0"

    static let clientNameHeader = "apollographql-client-name"
    static let clientVersionHeader = "apollographql-client-version"

    /// Upstream's defaults: no name, no version, the library named in the body.
    public init(clientApplicationName: String? = nil, clientApplicationVersion: String? = nil, includeApolloLibraryAwareness: Bool = true) {
        self.clientApplicationName = clientApplicationName
        self.clientApplicationVersion = clientApplicationVersion
        self.includeApolloLibraryAwareness = includeApolloLibraryAwareness
    }

    /// Sends nothing at all.
    public static let none = ClientAwarenessMetadata(includeApolloLibraryAwareness: false)

    /// The headers to send, in upstream's order (name, then version).
    var headers: [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        if let clientApplicationName { headers.append((Self.clientNameHeader, clientApplicationName)) }
        if let clientApplicationVersion { headers.append((Self.clientVersionHeader, clientApplicationVersion)) }
        return headers
    }

    /// Adds `extensions.clientLibrary` to `body`, keeping any other extension.
    func applyExtension(to body: inout [String: JSONValue]) {
        guard includeApolloLibraryAwareness else { return }
        var extensions = body["extensions"]?.objectValue ?? [:]
        extensions["clientLibrary"] = ["name": .string(Self.libraryName), "version": .string(Self.libraryVersion)]
        body["extensions"] = .object(extensions)
    }
}
