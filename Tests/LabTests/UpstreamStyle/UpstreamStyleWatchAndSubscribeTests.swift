import Backend
import ChainKit
import Foundation
import Lab
import Serve
import Testing
import UpstreamStyle

/// The watcher and the subscription of Examples/UpstreamStyle/WatchingAndSubscribing.swift,
/// written as Apollo iOS 2.4's documentation writes them, run through `ApolloClient` and
/// `RequestChainNetworkTransport` against `chainlab serve`. Upstream's shapes: apollo-ios
/// Sources/Apollo/ApolloClient.swift (`watch`, `subscribe`), Sources/Apollo/GraphQLQueryWatcher.swift,
/// Sources/Apollo/SubscriptionStream.swift, Sources/Apollo/SubscriptionState.swift.
@Suite("Watching and subscribing in Apollo iOS's documented style", .timeLimit(.minutes(2)))
struct UpstreamStyleWatchAndSubscribeTests {
    struct Served {
        let lab: ServedLab
        let tokens: AuthTokenManager
        let client: ApolloClient

        init() async throws {
            lab = try ServedLab()
            tokens = AuthTokenManager(tokenURL: lab.baseURL.appending(path: "oauth/token"), singleFlight: true)
            try await tokens.signIn(username: "demo", password: "demo")
            let store = ApolloStore()
            let transport = RequestChainNetworkTransport(
                urlSession: URLSessionChunkReader(), interceptorProvider: NetworkInterceptorProvider(tokenManager: tokens, log: Log()),
                store: store, endpointURL: lab.baseURL.appending(path: "graphql"))
            client = ApolloClient(networkTransport: transport, store: store)
        }
    }

    /// A model watching HeroQuery, and a stream that yields each time the model changes.
    static func watching(_ client: ApolloClient) async -> (HeroNameModel, AsyncStream<Void>.Iterator) {
        let (changes, changed) = AsyncStream<Void>.makeStream()
        let model = HeroNameModel()
        await model.startWatching(client: client) { changed.yield() }
        return (model, changes.makeAsyncIterator())
    }

    @Test("a watched query: the first fetch, then the new name once a fetch writes it to the store; nothing after cancel")
    func watchFollowsTheStore() async throws {
        let served = try await Served()
        defer { served.lab.service.stop() }
        let (model, changeStream) = await Self.watching(served.client)
        var changes = changeStream

        await changes.next()
        #expect(model.names == ["R2-D2"])

        // The server renames the hero; the mutation's result is stored under the mutation's
        // root, so the watcher hears of the new name when a fetch of the query writes it.
        let renamed = try await served.client.perform(mutation: RenameHeroMutation(name: "Artoo"))
        #expect(renamed.data?.renameHero == ["id": "2001", "name": "Artoo"])
        let fetched = try await served.client.fetch(query: HeroQuery(), cachePolicy: .networkOnly)
        #expect(fetched.source == .server)
        await changes.next()
        #expect(model.names == ["R2-D2", "Artoo"])

        model.stopWatching()
        _ = try await served.client.perform(mutation: RenameHeroMutation(name: "Artoo-Detoo"))
        let refetched = try await served.client.fetch(query: HeroQuery(), cachePolicy: .networkOnly)
        #expect(refetched.data?.hero == ["id": "2001", "name": "Artoo-Detoo"])
        #expect(model.names == ["R2-D2", "Artoo"])
        #expect(model.errors.isEmpty)
        #expect(served.lab.backend.counters["graphqlRequests"] == 5)
    }

    @Test("a subscription read with for try await: the server's three events in order, then the stream ends, completed")
    func subscriptionYieldsEventsInOrder() async throws {
        let served = try await Served()
        defer { served.lab.service.stop() }

        let (names, states) = try await heroNameChanges(client: served.client)

        #expect(names == ["R2-D2", "Artoo", "Artoo-Detoo"])
        #expect(states == [.pending, .active, .active, .active, .finished(.completed)])
        #expect(states.map(\.description) == ["pending", "active", "active", "active", "finished(completed)"])
    }

    @Test("a subscription whose reading task is cancelled ends, its state finished(cancelled)")
    func cancelledSubscription() async throws {
        let served = try await Served()
        defer { served.lab.service.stop() }
        let stream = try served.client.subscribe(subscription: HeroNameChangedSubscription())
        let reader = Task {
            var names: [String] = []
            do {
                for try await response in stream {
                    names.append(response.data?.heroNameChanged?["name"]?.stringValue ?? "none")
                    if names.count == 1 { withUnsafeCurrentTask { $0?.cancel() } }
                }
            } catch is CancellationError {}
            return names
        }
        let names = try await reader.value
        #expect(names == ["R2-D2"])
        #expect(stream.state == .finished(.cancelled))
    }
}
