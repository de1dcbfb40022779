/// Every reason the lab refuses a command at a stop, worded in one place: the scheduler
/// refuses commands with these (``CommandRefusal``), a stop carries the reason a retry cannot
/// be forced there (``StopCapabilities/retryRefusal``), and the inspector's key hints say the
/// same words.
public enum Refusal: Sendable, Hashable, CustomStringConvertible {
    /// `stop` names the lane: `request #1`, or `request #1 (network lane)` while it has two.
    case notHeld(stop: String)
    case notWaiting(stop: String)
    case requestHeadersNotEditable(place: StopPlace, hop: String)
    case responseNotEditable(place: StopPlace, hop: String)
    case no401(place: StopPlace, hop: String)
    /// A forked request's cache lane: a retry or a 401 would drop the network fetch under way.
    case networkFetchOverlaps(stop: String)
    case cannotFail(request: Int, place: StopPlace)
    /// A replay whose next entry expects a lane at a stop it is not at.
    case replayDiverged(step: Int, expected: String, place: StopPlace, found: StopPlace?)

    // Why a retry cannot be forced at a stop.
    case nothingToRetry
    case refreshCannotRetry
    case cacheStepCannotRetry
    case parserCannotRetry
    /// HTTP interceptors cannot throw `ChainRunner.Retry`: the upstream rule, shown rather than hidden.
    case httpInterceptorCannotRetry
    case middlewarePreFlightCannotRetry
    case transportCannotRetry

    public var description: String {
        switch self {
        case .notHeld(let stop): "\(stop) is not held at a stop"
        case .notWaiting(let stop): "\(stop) is not waiting at a stop"
        case .requestHeadersNotEditable(let place, let hop): "request headers cannot be edited at \(place) of \(hop)"
        case .responseNotEditable(let place, let hop): "the response cannot be edited at \(place) of \(hop)"
        case .no401(let place, let hop): "a 401 cannot be forced at \(place) of \(hop): force it at the transport or at a post-flight stop"
        case .networkFetchOverlaps(let stop): "\(stop) cannot retry or answer 401 while its network fetch overlaps; step the network lane to its end first"
        case .cannotFail(let request, let place): "request #\(request) cannot fail at \(place)"
        case .replayDiverged(let step, let expected, let place, let found):
            "replay diverged at step \(step): expected \(expected) at \(place), found it \(found.map { "at \($0)" } ?? "not waiting at a stop")"
        case .nothingToRetry: "nothing can be retried here"
        case .refreshCannotRetry: "a refresh cannot be retried; force the retry at a GraphQL hop"
        case .cacheStepCannotRetry: "the cache step cannot retry; force the retry at a GraphQL hop"
        case .parserCannotRetry: "the parser cannot retry; force the retry at a GraphQL hop"
        case .httpInterceptorCannotRetry:
            "HTTP interceptors see only the HTTP request, so they cannot throw RequestChain.Retry (Apollo iOS 2.x); force the retry at a GraphQL hop"
        case .middlewarePreFlightCannotRetry: "a middleware retries by calling next again: force the retry at its post-flight stop"
        case .transportCannotRetry: "the transport cannot retry; force the retry at a middleware's post-flight stop"
        }
    }
}
