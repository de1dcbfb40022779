/// The bottom of the GraphQL chain's HTTP layer: sends a ``NetworkRequest`` and returns the
/// response head with a lazy chunk stream (Apollo's `ApolloURLSession.chunks(for:)`).
public protocol GraphQLTransport: Sendable {
    func send(_ request: NetworkRequest) async throws -> NetworkResponse
}
