public import Stops
public import Wire
public import Timeline

/// Something a person, a script or a replay asks the lab to do.
///
/// Commands are queued and carried out one at a time, only when no operation is between
/// two stops, so the order in which they take effect is exactly the order recorded — which
/// is what makes a replay reproduce the same timeline.
///
/// A command about a request's stop may name the `lane` of that stop, for a request with two
/// (``Lane``: an overlapping CacheAndNetwork fetch); nil acts on its cache lane's stop when it
/// waits there, else on its network lane's.
public enum LabCommand: Sendable, Hashable {
    /// Start the scenario's operation number `operation` (0-based) as a new request.
    case launch(operation: Int)
    /// Release a held request; it stops again at its next stop.
    case step(request: Int, lane: Lane? = nil)
    /// Release a held request; it runs to the next breakpoint or to the end.
    case resume(request: Int, lane: Lane? = nil)
    /// Resume every held request.
    case resumeAll
    /// Let a request that is only waiting its turn go on (recorded for automatic releases).
    case pass(request: Int, lane: Lane? = nil)
    /// Replace the request headers at a pre-flight stop.
    case editRequestHeaders(request: Int, headers: HTTPFields, lane: Lane? = nil)
    /// Replace the response status and/or headers at an HTTP or transport post stop.
    case editResponse(request: Int, status: Int?, headers: HTTPFields?, lane: Lane? = nil)
    case force401(request: Int, lane: Lane? = nil)
    case forceRetry(request: Int, lane: Lane? = nil)
    case fail(request: Int, fault: LabFault, lane: Lane? = nil)
    /// Advance the lab clock while a request is held at a stop.
    case delay(request: Int, seconds: Double, lane: Lane? = nil)
    /// Advance the lab clock.
    case advanceClock(seconds: Double)
    /// Expire every access token on the backend.
    case expireTokens
    /// Replace the breakpoints by rule (a person's list, a scenario's, or `trace --break`).
    case setBreakRules([BreakRule])

    /// The request the command acts on, if any.
    public var request: Int? {
        switch self {
        case .step(let id, _), .resume(let id, _), .pass(let id, _), .editRequestHeaders(let id, _, _), .editResponse(let id, _, _, _),
            .force401(let id, _), .forceRetry(let id, _), .fail(let id, _, _), .delay(let id, _, _):
            id
        case .launch, .resumeAll, .advanceClock, .expireTokens, .setBreakRules:
            nil
        }
    }

    /// The lane of the stop the command acts on, when it names one.
    public var lane: Lane? {
        switch self {
        case .step(_, let lane), .resume(_, let lane), .pass(_, let lane), .editRequestHeaders(_, _, let lane), .editResponse(_, _, _, let lane),
            .force401(_, let lane), .forceRetry(_, let lane), .fail(_, _, let lane), .delay(_, _, let lane):
            lane
        case .launch, .resumeAll, .advanceClock, .expireTokens, .setBreakRules:
            nil
        }
    }

    /// The same command naming `lane` (commands without a request stay as they are).
    public func inLane(_ lane: Lane?) -> LabCommand {
        switch self {
        case .step(let id, _): .step(request: id, lane: lane)
        case .resume(let id, _): .resume(request: id, lane: lane)
        case .pass(let id, _): .pass(request: id, lane: lane)
        case .editRequestHeaders(let id, let headers, _): .editRequestHeaders(request: id, headers: headers, lane: lane)
        case .editResponse(let id, let status, let headers, _): .editResponse(request: id, status: status, headers: headers, lane: lane)
        case .force401(let id, _): .force401(request: id, lane: lane)
        case .forceRetry(let id, _): .forceRetry(request: id, lane: lane)
        case .fail(let id, let fault, _): .fail(request: id, fault: fault, lane: lane)
        case .delay(let id, let seconds, _): .delay(request: id, seconds: seconds, lane: lane)
        case .launch, .resumeAll, .advanceClock, .expireTokens, .setBreakRules: self
        }
    }
}

/// A command as it took effect, with where its request was held, for record and replay.
public struct RecordedCommand: Sendable, Hashable {
    public var command: LabCommand
    /// The stop the request was at when the command took effect (nil for commands without a
    /// request); the command names the stop's lane while the request had two.
    public var place: StopPlace?

    public init(command: LabCommand, place: StopPlace?) {
        self.command = command
        self.place = place
    }
}

/// Why a command could not take effect.
public struct CommandRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    public var command: LabCommand
    public var refusal: Refusal
    /// The refusal in words.
    public var reason: String { refusal.description }
    public var description: String { reason }

    public init(command: LabCommand, refusal: Refusal) {
        self.command = command
        self.refusal = refusal
    }
}

/// Credentials stay out of the scheduler's log, and so out of recordings: a header edit is
/// logged with every credential header's value (see `SecretMasking.isSecretHeader`) replaced
/// by ``marker``, and applying an edit puts back, for a marker, the value the request has
/// at that stop. A replay therefore sends the credentials the replayed run obtained itself;
/// a credential typed into the header editor is not recorded.
public enum RecordedSecret {
    /// What a recording holds instead of a credential.
    public static let marker = "(credential not recorded)"

    /// `headers` with each credential's value replaced by ``marker``.
    public static func redacted(_ headers: HTTPFields) -> HTTPFields {
        HTTPFields(headers.map { field in
            guard SecretMasking.isSecretHeader(field.name), let kept = try? HTTPField(name: field.name, value: marker) else { return field }
            return kept
        })
    }

    /// `headers` with each ``marker`` replaced by the value `current` has under that name;
    /// a marker for a header `current` lacks is dropped.
    public static func restored(_ headers: HTTPFields, from current: HTTPFields) -> HTTPFields {
        HTTPFields(headers.compactMap { field in
            guard field.value == marker else { return field }
            return current[field.name].flatMap { try? HTTPField(name: field.name, value: $0) }
        })
    }
}
