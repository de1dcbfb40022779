public import ChainKit
import Timeline

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
    /// Replace the breakpoints by rule (a person's list, a scenario's, or `trace --break`).
    case setBreakRules([BreakRule])

    /// The request the command acts on, if any.
    public var request: Int? {
        switch self {
        case .step(let id), .resume(let id), .pass(let id), .editRequestHeaders(let id, _), .editResponse(let id, _, _),
            .force401(let id), .forceRetry(let id), .fail(let id, _), .delay(let id, _):
            id
        case .launch, .resumeAll, .advanceClock, .expireTokens, .setBreakRules:
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
