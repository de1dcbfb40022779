import Instrumentation
import Scheduling
import Findings
import Backend
import ChainKit
import Foundation
import Timeline
import Outbound

/// The operation whose task is running, for code that several operations share (the token
/// manager's refresh and its hooks).
enum LabContext {
    @TaskLocal static var operation: OperationContext?
}

/// The token endpoint's refusal of a refresh (RFC 6749 §5.2).
public struct TokenEndpointError: Error, Sendable, Hashable, CustomStringConvertible {
    public let status: Int
    /// The OAuth `error` code, e.g. `invalid_grant`.
    public let code: String
    public let detail: String?
    public var description: String {
        "token endpoint refused the refresh: HTTP \(status) \(code)" + (detail.map { " (\($0))" } ?? "")
    }
}

/// Refreshing tokens in a session: the token manager's wiring to the scheduler and the
/// timeline, and the grant exchange itself.
extension LabSession {
    /// The session's token manager: it renews at the lab's token endpoint (in process or on a
    /// remote lab) or at a real OAuth token endpoint, with a stop before each grant, and its
    /// hooks make a request that waits for another's refresh *blocked* (not held) until it
    /// wakes at its own turn.
    ///
    /// The hooks and the grant run on the task of whichever operation needs the token;
    /// ``LabContext/operation`` says which, so the stops and events are that operation's.
    /// At a real token endpoint a grant carries `traceparent` (the attempt that needed it)
    /// unless it is nil.
    static func tokenManager(
        scenario: Scenario, initial: TokenPair, source: TokenSource, baseURL: URL, target: LabTarget, clock: VirtualClock,
        traceparent: Traceparent? = nil
    ) -> TokenManager {
        let tokenURL = baseURL.appendingPathComponent("oauth/token").absoluteString
        let presented = RefreshTokenNumbers()
        let hooks = TokenManager.Hooks(
            willAwaitSharedRefresh: {
                if let operation = LabContext.operation { operation.labScheduler?.block(request: operation.request) }
            },
            didAwaitSharedRefresh: {
                guard let operation = LabContext.operation else { return }
                _ = await operation.gate(.wake, name: "TokenManager", kind: .auth)
                // Says which attempt waited for another's refresh (an OTLP span link); at
                // its turn, past the gate, so the timeline's order stays determined.
                operation.emitTokenEvent(.resumed, detail: RefreshNote.released)
            })
        switch source {
        case .lab:
            return TokenManager(tokens: initial, strategy: scenario.refreshStrategy, hooks: hooks) { refreshToken in
                let form = "grant_type=refresh_token&refresh_token=\(refreshToken)"
                return try await LabSession.refresh(
                    note: RefreshNote.grant(refreshToken: presented.number(of: refreshToken)), form: form,
                    headers: try LabSession.formHeaders(), url: tokenURL, refreshToken: refreshToken
                ) { headers in
                    try await target.exchange(BackendRequest(method: "POST", target: "/oauth/token", headers: headers, body: Data(form.utf8)), clock: clock)
                }
            }
        case .oauth(let endpoint, let client, let keepsTokens):
            // A grant, not a refresher: without a refresh token it asks for client credentials.
            return TokenManager(tokens: initial, strategy: scenario.refreshStrategy, hooks: hooks, grant: { refreshToken in
                let form = endpoint.form(refreshToken: refreshToken)
                // The person's own refresh token, which nobody will save once it is rotated.
                let stored = !keepsTokens && refreshToken != nil && refreshToken == initial.refreshToken
                return try await LabSession.refresh(
                    note: refreshToken.map { RefreshNote.grant(refreshToken: presented.number(of: $0), stored: stored) } ?? "client_credentials grant",
                    form: form, headers: try traceparent.map { $0.addingForCurrentAttempt(to: try endpoint.headers()) } ?? endpoint.headers(),
                    url: RemoteFailure.displayURL(endpoint.url), refreshToken: refreshToken
                ) { headers in
                    try await clock.advancing {
                        try await client.exchange(url: endpoint.url, method: "POST", headers: headers, body: Data(form.utf8), limit: RemoteLab.controlAnswerLimit)
                    }
                }
            })
        }
    }

    static func formHeaders() throws -> HTTPFields {
        var headers = HTTPFields()
        try headers.append("Content-Type", "application/x-www-form-urlencoded")
        return headers
    }

    /// Sends a grant to a token endpoint with `exchange`, with a stop before it and an
    /// `auth`/`refresh` event for its answer; an `error` answer (RFC 6749 §5.2) becomes a
    /// ``TokenEndpointError``. A new refresh token in the answer replaces the old one
    /// (rotation); without one the old one stays.
    /// `note` is the events' detail: for a `refresh_token` grant it numbers the refresh token
    /// presented (``RefreshNote``), so findings can tell two refreshes presented the same one
    /// without the secret being recorded.
    static func refresh(
        note: String, form: String, headers: HTTPFields, url: String, refreshToken: String?,
        exchange: @Sendable (HTTPFields) async throws -> BackendResponse
    ) async throws -> TokenPair {
        let response = try await recordedGrant(note: note, form: form, headers: headers, url: url, exchange: exchange)
        let json = try? JSONValue(parsing: response.body)
        let code = json?["error"]?.stringValue
        guard response.status == 200, let access = json?["access_token"]?.stringValue else {
            let fallback = json == nil ? "the answer is not JSON (\(response.body.count) bytes)" : "the answer has no access_token"
            throw TokenEndpointError(status: response.status, code: code ?? "invalid_response", detail: json?["error_description"]?.stringValue ?? (code == nil ? fallback : nil))
        }
        return TokenPair(accessToken: access, refreshToken: json?["refresh_token"]?.stringValue ?? refreshToken)
    }

    /// Sends a grant with `exchange` as the operation whose task is running: a stop before
    /// it, a `send` event and a `refresh` event for its answer, which it returns as it came.
    static func recordedGrant(
        note: String, form: String, headers: HTTPFields, url: String,
        exchange: @Sendable (HTTPFields) async throws -> BackendResponse
    ) async throws -> BackendResponse {
        let detail = note
        let operation = LabContext.operation
        operation?.labScheduler?.refreshStarted()
        defer { operation?.labScheduler?.refreshEnded() }
        if let operation {
            let release = await operation.gate(
                .refresh, name: "TokenManager", kind: .auth,
                snapshot: HopSnapshot(method: "POST", url: url, headers: headers, body: BodyPreview(Data(form.utf8))),
                capabilities: StopCapabilities(retryRefusal: .refreshCannotRetry))
            if case .fail(let fault) = release.disposition {
                operation.emitTokenEvent(.refresh, HopSnapshot(error: fault), detail: detail)
                throw fault
            }
        }
        // The grant as sent, so exports show when the refresh started and what it sent.
        operation?.emitTokenEvent(
            .send, HopSnapshot(method: "POST", url: url, headers: headers, body: BodyPreview(Data(form.utf8))),
            detail: detail)
        let response: BackendResponse
        do {
            response = try await exchange(headers)
        } catch {
            operation?.emitTokenEvent(.refresh, HopSnapshot(error: error), detail: detail)
            throw error
        }
        let json = try? JSONValue(parsing: response.body)
        let code = json?["error"]?.stringValue
        operation?.emitTokenEvent(
            .refresh,
            HopSnapshot(method: "POST", url: url, headers: response.headers, status: response.status, error: code, body: BodyPreview(response.body)),
            detail: detail)
        return response
    }
}
