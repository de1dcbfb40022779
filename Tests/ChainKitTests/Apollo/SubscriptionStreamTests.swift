import ChainKit
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// What `ApolloClient.subscribe(subscription:)` returns in apollo-ios 2.4
/// (Sources/Apollo/ApolloClient.swift): a `SubscriptionStream` (Sources/Apollo/SubscriptionStream.swift)
/// whose `state` (Sources/Apollo/SubscriptionState.swift) `RequestChainNetworkTransport` sets
/// (Sources/Apollo/RequestChain/RequestChainNetworkTransport.swift). The events themselves
/// are pinned against `chainlab serve` in LabTests' UpstreamStyleWatchAndSubscribeTests.
@Suite("Subscription streams", .timeLimit(.minutes(1)))
struct SubscriptionStreamTests {
    struct HeroNameChanged: GraphQLSubscription {
        static let operationName = "HeroNameChanged"
        static let operationDocument = OperationDocument(
            definition: OperationDefinition("subscription HeroNameChanged { heroNameChanged { id name } }"))
    }

    /// Answers every request with a 500.
    final class FailingSession: ApolloURLSession {
        func chunks(for request: URLRequest) async throws -> (any AsyncChunkSequence, URLResponse) {
            (PullStream([Data("boom".utf8)]), HTTPURLResponse(url: request.url!, statusCode: 500, httpVersion: "HTTP/1.1", headerFields: [:])!)
        }
    }

    @Test("a subscription the chain fails: the error is thrown to the reader and the state is finished(error)")
    func failure() async throws {
        let store = ApolloStore()
        let client = ApolloClient(
            networkTransport: RequestChainNetworkTransport(
                urlSession: FailingSession(), interceptorProvider: DefaultInterceptorProvider.shared, store: store,
                endpointURL: URL(string: "http://lab.invalid/graphql")!),
            store: store)
        let stream = try client.subscribe(subscription: HeroNameChanged(), cachePolicy: .networkOnly)
        #expect(stream.state == .pending)
        await #expect(throws: ResponseCodeInterceptor.ResponseCodeError.self) {
            for try await _ in stream {}
        }
        guard case .finished(.error(let error)) = stream.state else {
            Issue.record("state is \(stream.state)")
            return
        }
        #expect(error is ResponseCodeInterceptor.ResponseCodeError)
        #expect(stream.state.description.hasPrefix("finished(error: "))
    }

    @Test("states compare by case, errors by case only, and describe themselves as upstream's do")
    func states() {
        struct Boom: Error {}
        #expect(SubscriptionState.finished(.error(Boom())) == .finished(.error(CancellationError())))
        #expect(SubscriptionState.finished(.completed) != .finished(.cancelled))
        #expect(SubscriptionState.active != .pending)
        #expect([SubscriptionState.pending, .active, .paused, .reconnecting, .finished(.completed), .finished(.cancelled)].map(\.description) == [
            "pending", "active", "paused", "reconnecting", "finished(completed)", "finished(cancelled)",
        ])
    }
}
