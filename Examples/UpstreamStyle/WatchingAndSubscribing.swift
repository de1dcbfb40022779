// A query watched and a subscription read the way Apollo iOS 2.4's documentation writes them
// ("Watching queries", "Subscriptions"): `client.watch(query:)` with a result handler and
// `cancel()` when done; `for try await` over what `client.subscribe(subscription:)` returns,
// with the stream's `state`. As in Interceptors.swift, only the import differs from an app's.
// ChainLab's tests run them against `chainlab serve` (Tests/LabTests/UpstreamStyle/).
import ChainKit
import Foundation
import Synchronization

package struct HeroNameChangedSubscription: GraphQLSubscription {
    package static let operationName: String = "HeroNameChanged"
    package static let operationDocument: OperationDocument = OperationDocument(
        definition: OperationDefinition("subscription HeroNameChanged { heroNameChanged { id name } }"))

    package init() {}
}

/// The hero's name as a screen shows it: set by the first result of a watched `HeroQuery`,
/// then again each time the cache changes the hero.
package final class HeroNameModel: Sendable {
    private let state = Mutex<(names: [String], errors: [String])>(([], []))
    private let watcher = Mutex<GraphQLQueryWatcher<HeroQuery>?>(nil)

    package init() {}

    /// Every name the model was given, oldest first.
    package var names: [String] { state.withLock { $0.names } }
    /// Every error the watcher reported.
    package var errors: [String] { state.withLock { $0.errors } }

    /// Starts watching; `onChange` is called after each result.
    package func startWatching(client: ApolloClient, onChange: @escaping @Sendable () -> Void = {}) async {
        let watcher = await client.watch(query: HeroQuery()) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let response):
                if let name = response.data?.hero?["name"]?.stringValue { state.withLock { $0.names.append(name) } }
            case .failure(let error):
                state.withLock { $0.errors.append("\(error)") }
            }
            onChange()
        }
        self.watcher.withLock { $0 = watcher }
    }

    /// Stops watching; the model changes no more.
    package func stopWatching() {
        watcher.withLock { watcher in
            watcher?.cancel()
            watcher = nil
        }
    }
}

/// Every name the server reports while the subscription lasts, and the stream's state before
/// the first event, during the events and after the last.
package func heroNameChanges(client: ApolloClient) async throws -> (names: [String], states: [SubscriptionState]) {
    let stream = try client.subscribe(subscription: HeroNameChangedSubscription())
    var names: [String] = []
    var states = [stream.state]
    for try await response in stream {
        states.append(stream.state)
        if let name = response.data?.heroNameChanged?["name"]?.stringValue { names.append(name) }
    }
    states.append(stream.state)
    return (names, states)
}
