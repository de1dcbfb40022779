import Dispatch
import Foundation
import Synchronization

/// What every connection of one server shares.
struct ConnectionSettings: Sendable {
    let limits: HTTPRequestLimits
    let idleTimeout: Duration
    let handler: @Sendable (HTTPServerRequest) async -> HTTPServerResponse
}

/// One client connection, served start to end by one dedicated thread with blocking I/O.
///
/// Every wait has an end: reading a request head (and then its body) must finish within
/// the idle timeout counted from when the connection became ready for it, so a client
/// that trickles bytes is cut off as surely as a silent one; sends give up after the same
/// timeout (SO_SNDTIMEO); and ``abort()`` wakes the thread from any of them.
final class HTTPConnection: Sendable {
    let descriptor: Int32
    private let settings: ConnectionSettings
    private let state = Mutex(State())
    private let executor = ConnectionExecutor()

    private struct State {
        var aborted = false
        var closed = false
        var handlerTask: Task<Void, Never>?
    }

    private enum Received {
        case request(HTTPServerRequest)
        case finished
    }

    init(descriptor: Int32, settings: ConnectionSettings) {
        self.descriptor = descriptor
        self.settings = settings
    }

    /// Ends the connection from another thread: cancels a running handler, stops waiting
    /// for it, and shuts the socket down so a blocked poll or send returns at once.
    func abort() {
        let task = state.withLock { state in
            state.aborted = true
            // Shutting down under the lock: the serving thread closes the descriptor under
            // the same lock, so this can never touch a reused descriptor number.
            if !state.closed { Socket.shutdownBoth(descriptor) }
            return state.handlerTask
        }
        task?.cancel()
        executor.finish()
    }

    /// Serves requests until the client leaves, a request is refused, a timeout passes or
    /// the connection is aborted; then closes the socket.
    func serve() {
        defer {
            state.withLock { state in
                state.closed = true
                Socket.closeDescriptor(descriptor)
            }
        }
        var parser = HTTPRequestParser(limits: settings.limits)
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: HTTPServer.readBufferBytes, alignment: 1)
        defer { chunk.deallocate() }
        while case .request(let request) = receive(with: &parser, into: chunk) {
            guard let response = respond(to: request) else { return }
            let problem = response.handlerMistake
            let answer = problem.map { HTTPServerResponse.refusal(status: 500, reason: $0) } ?? response
            var keepAlive = problem == nil && request.allowsKeepAlive && !response.asksToClose
                && !state.withLock(\.aborted)
            if let stream = answer.stream, request.method != "HEAD", !answer.isBodyless {
                let chunked = request.version == .http1_1
                keepAlive = keepAlive && chunked
                guard Socket.sendAll(descriptor, answer.streamedHead(chunked: chunked, closing: !keepAlive)),
                    send(stream, chunked: chunked), keepAlive
                else { return }
                continue
            }
            let bytes = answer.stream == nil
                ? answer.wireBytes(includeBody: request.method != "HEAD", closing: !keepAlive)
                : answer.streamedHead(chunked: request.version == .http1_1, closing: !keepAlive)
            guard Socket.sendAll(descriptor, bytes), keepAlive else { return }
        }
    }

    /// Runs a streamed body's producer and sends what it writes as it writes it; true when
    /// the whole body went out (the last chunk included), so the connection may go on.
    private func send(_ stream: HTTPServerBodyStream, chunked: Bool) -> Bool {
        let descriptor = self.descriptor
        let writer = HTTPServerChunkWriter { bytes in
            Socket.sendAll(descriptor, chunked ? HTTPServerResponse.chunk(bytes) : Array(bytes))
        }
        let outcome = Mutex(false)
        let ran = runHandlerTask {
            do {
                try await stream.produce(writer)
                outcome.withLock { $0 = true }
            } catch {}
        }
        guard ran, outcome.withLock({ $0 }), !state.withLock(\.aborted) else { return false }
        return !chunked || Socket.sendAll(descriptor, HTTPServerResponse.lastChunk)
    }

    /// Reads until the parser has a whole request, answering errors and timeouts itself.
    private func receive(with parser: inout HTTPRequestParser, into chunk: UnsafeMutableRawBufferPointer) -> Received {
        var deadline = ContinuousClock.now + settings.idleTimeout
        var bodyStarted = false
        while true {
            do {
                if let request = try parser.nextRequest() { return .request(request) }
            } catch {
                refuse(status: error.status, reason: error.description)
                return .finished
            }
            if case .body(let expectsContinue) = parser.progress, !bodyStarted {
                bodyStarted = true
                deadline = .now + settings.idleTimeout
                if expectsContinue && !Socket.sendAll(descriptor, Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) {
                    return .finished
                }
            }
            switch Socket.read(descriptor, into: chunk, until: deadline) {
            case .bytes(let count):
                parser.append(UnsafeRawBufferPointer(rebasing: chunk[..<count]))
            case .timedOut:
                if parser.progress != .idle && !state.withLock(\.aborted) {
                    refuse(status: 408, reason: "the request did not arrive within \(settings.idleTimeout)")
                }
                return .finished
            case .closed, .failed:
                return .finished
            }
        }
    }

    /// Sends a refusal and closes gracefully: stop sending, then read and discard what the
    /// client is still sending (for a bounded time) so closing does not reset the
    /// connection and destroy the refusal before the client reads it.
    private func refuse(status: Int, reason: String) {
        let bytes = HTTPServerResponse.refusal(status: status, reason: reason).wireBytes(includeBody: true, closing: true)
        guard Socket.sendAll(descriptor, bytes) else { return }
        Socket.shutdownWrite(descriptor)
        let deadline = ContinuousClock.now + min(settings.idleTimeout, .seconds(2))
        let drain = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 * 1024, alignment: 1)
        defer { drain.deallocate() }
        while case .bytes = Socket.read(descriptor, into: drain, until: deadline) {}
    }

    /// Runs the handler as a task on this thread (which is not a pool thread) until it
    /// answers; nil when the connection was aborted first.
    private func respond(to request: HTTPServerRequest) -> HTTPServerResponse? {
        let slot = ResponseSlot()
        let handler = settings.handler
        guard runHandlerTask({ slot.fill(await handler(request)) }) else { return nil }
        return slot.take()
    }

    /// Runs `body` as a task whose jobs run on this thread (``ConnectionExecutor``) until it
    /// ends or the connection is aborted (which cancels it); false when aborted before it
    /// started.
    private func runHandlerTask(_ body: @escaping @Sendable () async -> Void) -> Bool {
        let ran = executor.run { executor in
            state.withLock { state in
                guard !state.aborted else { return false }
                state.handlerTask = Task(executorPreference: executor) {
                    await body()
                    executor.finish()
                }
                return true
            }
        }
        guard ran else { return false }
        state.withLock { $0.handlerTask = nil }
        return true
    }
}

/// Hands the handler's response from its task to the waiting connection thread.
private final class ResponseSlot: Sendable {
    private let response = Mutex<HTTPServerResponse?>(nil)

    func fill(_ value: HTTPServerResponse) {
        response.withLock { $0 = value }
    }

    func take() -> HTTPServerResponse? {
        response.withLock { $0.take() }
    }
}
