import ChainKit
import Foundation

extension BackendState {
    /// The most failures one `/_lab/fail-next` may queue.
    static let failNextLimit = 10_000

    /// The `/_lab/` routes, which need no token and are never faulted or delayed.
    mutating func serveControl(_ route: BackendRoute.ControlRoute, request: BackendRequest, now: Double) -> BackendResponse {
        switch route {
        case .expireTokens:
            let expired = tokens.expireAllAccessTokens(now: now)
            return .json(200, ["expiredAccessTokens": .number(Double(expired))])
        case .authMode:
            let text = String(decoding: request.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let mode = LabBackend.AuthFailureMode(rawValue: text) else {
                let known = LabBackend.AuthFailureMode.allCases.map(\.rawValue).joined(separator: ", ")
                return .restError(400, error: "bad_request", message: "unknown auth mode \"\(text)\"; known: \(known)")
            }
            settings.authFailureMode = mode
            return .json(200, ["authFailureMode": .string(mode.rawValue)])
        case .failNext:
            switch BackendState.failurePlan(request.body) {
            case .success(let plan):
                injectFailures(plan.count, status: plan.status)
                return .json(200, ["failNext": .number(Double(plan.count)), "status": .number(Double(plan.status))])
            case .failure(let failure):
                return .restError(400, error: "bad_request", message: failure.message)
            }
        case .state:
            return .json(200, stateJSON)
        }
    }

    /// Queues `count` failures answered with `status`, replacing any still queued.
    mutating func injectFailures(_ count: Int, status: Int) {
        settings.failNext = min(BackendState.failNextLimit, max(0, count))
        settings.failNextStatus = min(599, max(500, status))
    }

    /// What `GET /_lab/state` reports.
    var stateJSON: JSONValue {
        let counterValues = LabBackend.Counter.allCases.map { ($0.rawValue, JSONValue.number(Double(counters[$0, default: 0]))) }
        return [
            "counters": .object(Dictionary(uniqueKeysWithValues: counterValues)),
            "authFailureMode": .string(settings.authFailureMode.rawValue),
            "failNext": .number(Double(settings.failNext)),
            "failNextStatus": .number(Double(settings.failNextStatus)),
        ]
    }

    /// Reads `{"count": N, "status": S}`; `status` defaults to 503.
    private static func failurePlan(_ body: Data) -> Result<(count: Int, status: Int), FailurePlanError> {
        let json: JSONValue
        do {
            json = try JSONValue(parsing: body)
        } catch {
            return .failure(FailurePlanError("the body must be JSON {\"count\": N, \"status\": 500...599}: \(error.description)"))
        }
        guard let countValue = json["count"]?.numberValue, let count = Int(exactly: countValue),
            (0...failNextLimit).contains(count)
        else {
            return .failure(FailurePlanError("count must be a whole number in 0...\(failNextLimit)"))
        }
        guard let statusJSON = json["status"], statusJSON != .null else { return .success((count, 503)) }
        guard let statusValue = statusJSON.numberValue, let status = Int(exactly: statusValue), (500...599).contains(status) else {
            return .failure(FailurePlanError("status must be a whole number in 500...599"))
        }
        return .success((count, status))
    }

    private struct FailurePlanError: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }
}
