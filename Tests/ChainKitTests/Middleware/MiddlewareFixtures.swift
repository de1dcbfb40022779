import Foundation
import Synchronization
@testable import ChainKit

/// Values the middleware tests share.
enum StackFixture {
    static let baseURL = URL(string: "https://api.example.com")!
    static let request = HTTPRequest(method: .get, path: "/pets")
    static let operationID = "listPets"

    /// A body that can be read once, as a streamed upload would be.
    static func singlePassBody(_ text: String) -> HTTPBody {
        let data = Data(text.utf8)
        return HTTPBody(chunks: PullStream([data]), length: .known(Int64(data.count)), iterationBehavior: .single)
    }

    /// The whole body as UTF-8 text, or nil when there is no body.
    static func text(of body: HTTPBody?) async throws -> String? {
        guard let body else { return nil }
        return String(decoding: try await body.collect(upTo: 1 << 16), as: UTF8.self)
    }
}

/// What happened, in order, across every layer and task of one test.
final class StackTestLog: Sendable {
    private let entries = Mutex<[String]>([])

    func append(_ entry: String) { entries.withLock { $0.append(entry) } }

    var all: [String] { entries.withLock { $0 } }
}

/// Logs `"<name> out"` on the way down and `"<name> back"` on the way up.
struct LoggingTestMiddleware: ClientMiddleware {
    let name: String
    let log: StackTestLog

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: MiddlewareNext
    ) async throws -> (HTTPResponse, HTTPBody?) {
        log.append("\(name) out")
        let result = try await next(request, body, baseURL)
        log.append("\(name) back")
        return result
    }
}

/// Throws `error` without calling the layers below.
struct FailingMiddleware: ClientMiddleware {
    let error: any Error

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: MiddlewareNext
    ) async throws -> (HTTPResponse, HTTPBody?) {
        throw error
    }
}

/// A plain error a test can recognise by value.
struct MarkerError: Error, Equatable, CustomStringConvertible {
    let name: String
    var description: String { "marker \(name)" }
}

/// A transport that plays a script of outcomes, one per call (the last one repeats), and
/// records every call with the body bytes it read.
final class ScriptedStackTransport: ClientTransport {
    enum Step: Sendable {
        case status(Int, body: String? = nil)
        case error(any Error)
    }

    struct Call: Equatable {
        var request: HTTPRequest
        var body: Data?
        var baseURL: URL
        var operationID: String
    }

    private struct State {
        var steps: [Step]
        var calls: [Call] = []
    }

    private let state: Mutex<State>

    init(_ steps: [Step]) {
        precondition(!steps.isEmpty, "a script needs at least one step")
        state = Mutex(State(steps: steps))
    }

    var calls: [Call] { state.withLock { $0.calls } }

    func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        // Reading the body is what a real transport does, so a single-pass body that was
        // already sent fails here just as it would on the wire.
        let bytes = try await body?.collect(upTo: 1 << 16)
        let step = state.withLock { state in
            state.calls.append(Call(request: request, body: bytes, baseURL: baseURL, operationID: operationID))
            return state.steps.count > 1 ? state.steps.removeFirst() : state.steps[0]
        }
        switch step {
        case .status(let status, let text):
            return (HTTPResponse(status: .init(code: status)), text.map { HTTPBody($0) })
        case .error(let error):
            throw error
        }
    }
}
