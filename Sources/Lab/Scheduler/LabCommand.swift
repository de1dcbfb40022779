public import ChainKit

/// Something a person, a script or a replay asks the lab to do.
///
/// Commands are queued and carried out one at a time, only when no operation is between
/// two stops, so the order in which they take effect is exactly the order recorded — which
/// is what makes a replay reproduce the same timeline.
public enum LabCommand: Sendable, Hashable {
    /// Start the scenario's operation number `operation` (0-based) as a new request.
    case launch(operation: Int)
    /// Release a held request; it stops again at its next stop.
    case step(request: Int)
    /// Release a held request; it runs to the next breakpoint or to the end.
    case resume(request: Int)
    /// Resume every held request.
    case resumeAll
    /// Let a request that is only waiting its turn go on (recorded for automatic releases).
    case pass(request: Int)
    /// Replace the request headers at a pre-flight stop.
    case editRequestHeaders(request: Int, headers: HTTPFields)
    /// Replace the response status and/or headers at an HTTP or transport post stop.
    case editResponse(request: Int, status: Int?, headers: HTTPFields?)
    case force401(request: Int)
    case forceRetry(request: Int)
    case fail(request: Int, fault: LabFault)
    /// Advance the lab clock while a request is held at a stop.
    case delay(request: Int, seconds: Double)
    /// Advance the lab clock.
    case advanceClock(seconds: Double)
    /// Expire every access token on the backend.
    case expireTokens

    /// The request the command acts on, if any.
    public var request: Int? {
        switch self {
        case .step(let id), .resume(let id), .pass(let id), .editRequestHeaders(let id, _), .editResponse(let id, _, _),
            .force401(let id), .forceRetry(let id), .fail(let id, _), .delay(let id, _):
            id
        case .launch, .resumeAll, .advanceClock, .expireTokens:
            nil
        }
    }
}

/// A command as it took effect, with where its request was held, for record and replay.
public struct RecordedCommand: Sendable, Hashable {
    public var command: LabCommand
    /// The stop the request was at when the command took effect (nil for commands without a request).
    public var place: StopPlace?

    public init(command: LabCommand, place: StopPlace?) {
        self.command = command
        self.place = place
    }
}

/// Why a command could not take effect.
public struct CommandRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    public var command: LabCommand
    public var reason: String
    public var description: String { reason }
}
