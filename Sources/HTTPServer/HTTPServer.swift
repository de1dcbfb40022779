#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Foundation
import Synchronization

/// A small HTTP/1.1 server for loopback use: keep-alive, Content-Length bodies, responses
/// streamed with chunked transfer coding (``HTTPServerBodyStream``), strict parsing,
/// bounded waits.
///
/// ```swift
/// let server = HTTPServer { request in
///     .text("you asked for \(request.target)")
/// }
/// let port = try server.start()   // an ephemeral port on 127.0.0.1
/// defer { server.stop() }
/// ```
///
/// Threading: one listener thread polls the listening socket, and every accepted
/// connection gets its own thread doing blocking I/O. Those threads are not the Swift
/// concurrency pool: each one runs the async handler as a `Task` whose jobs it runs itself
/// while it waits (`ConnectionExecutor`), so a busy pool cannot starve a handler, a handler
/// may block on I/O, and a slow handler costs a parked thread, never a pool thread. Connections beyond `maxConnections` are answered 503 and closed, which
/// bounds the thread count.
///
/// Timeouts: a request head must arrive whole within `idleTimeout` of the connection
/// being ready for it, and its body within `idleTimeout` of the head; the clock is not
/// restarted by each byte, so a client trickling one byte a second is cut off like a
/// silent one (with a 408 when part of a request had arrived). Sends give up after
/// `idleTimeout` too, so a client that never reads cannot hold a thread.
///
/// Refusals are plain text and close the connection: 400 for malformed requests, 431
/// for an oversized head, 413 for an oversized body, 501 for Transfer-Encoding, 505 for
/// other HTTP versions, 417 for an unknown expectation, 500 when the handler's response
/// cannot be sent (see ``HTTPServerResponse``).
public final class HTTPServer: Sendable {
    /// The bytes a connection reads into at a time, on the server's side and on
    /// ``HTTPClientConnection``'s: part of what each connection in flight holds.
    public static let readBufferBytes = 64 << 10

    /// The numeric address listened on.
    public let host: String
    /// Per-request size limits.
    public let limits: HTTPRequestLimits
    /// How long a connection may take to deliver a request head (or body) before it is
    /// closed, and how long a send may block.
    public let idleTimeout: Duration
    /// How many connections are served at once; more are answered 503 and closed.
    public let maxConnections: Int

    private let requestedPort: UInt16
    private let handler: @Sendable (HTTPServerRequest) async -> HTTPServerResponse
    private let lifecycle = Mutex(Lifecycle.idle)

    private enum Lifecycle {
        case idle
        case running(Running)
        case stopped
    }

    private struct Running {
        let port: UInt16
        let wakeListener: Int32
        let registry: ConnectionRegistry
    }

    /// How long ``stop()`` waits for threads to finish; they are woken and should be done
    /// in milliseconds, so this only bounds a pathological case.
    private static let stopGrace = DispatchTimeInterval.seconds(5)

    /// Creates a server; nothing listens until ``start()``.
    /// - Parameters:
    ///   - host: a numeric IPv4 or IPv6 address.
    ///   - port: the port to listen on; 0 lets the system pick a free one.
    ///   - limits: head and body size limits.
    ///   - idleTimeout: the time a client has to send a request head (and then its body).
    ///   - maxConnections: connections served at once; each holds one thread.
    ///   - handler: answers each request; it runs as a task and is cancelled by ``stop()``.
    public init(
        host: String = "127.0.0.1",
        port: UInt16 = 0,
        limits: HTTPRequestLimits = HTTPRequestLimits(),
        idleTimeout: Duration = .seconds(30),
        maxConnections: Int = 1024,
        handler: @escaping @Sendable (HTTPServerRequest) async -> HTTPServerResponse
    ) {
        self.host = host
        self.requestedPort = port
        self.limits = limits
        self.idleTimeout = idleTimeout
        self.maxConnections = maxConnections
        self.handler = handler
    }

    deinit {
        stop()
    }

    /// The port listened on while running, nil before ``start()`` and after ``stop()``.
    public var port: UInt16? {
        lifecycle.withLock { lifecycle in
            if case .running(let running) = lifecycle { running.port } else { nil }
        }
    }

    /// Binds, starts listening and returns the port; a server starts once.
    @discardableResult
    public func start() throws(HTTPServerError) -> UInt16 {
        try lifecycle.withLock { lifecycle throws(HTTPServerError) -> UInt16 in
            guard case .idle = lifecycle else { throw .alreadyStarted }
            let listener = try Socket.makeListener(host: host, port: requestedPort, backlog: 1024)
            let wake: (read: Int32, write: Int32)
            do throws(HTTPServerError) {
                wake = try Socket.makePipe()
            } catch {
                Socket.closeDescriptor(listener.descriptor)
                throw error
            }
            let registry = ConnectionRegistry(
                maxConnections: maxConnections,
                settings: ConnectionSettings(limits: limits, idleTimeout: idleTimeout, handler: handler)
            )
            registry.spawn(name: "HTTPServer listener :\(listener.port)") {
                registry.acceptConnections(listener: listener.descriptor, wake: wake.read)
            }
            lifecycle = .running(Running(port: listener.port, wakeListener: wake.write, registry: registry))
            return listener.port
        }
    }

    /// Stops listening, closes every connection, cancels running handlers and waits for
    /// the server's threads to finish. Returns promptly even with clients connected; a
    /// handler that ignores cancellation keeps running but its answer is dropped.
    public func stop() {
        let running = lifecycle.withLock { lifecycle -> Running? in
            defer { lifecycle = .stopped }
            if case .running(let running) = lifecycle { return running }
            return nil
        }
        guard let running else { return }
        for connection in running.registry.beginStopping() {
            connection.abort()
        }
        // Closing the pipe's write end makes its read end report hang-up, which wakes the
        // listener's poll.
        Socket.closeDescriptor(running.wakeListener)
        _ = running.registry.threads.wait(timeout: .now() + Self.stopGrace)
    }
}

/// The live connections of a running server and the threads that serve them.
final class ConnectionRegistry: Sendable {
    /// Entered by every thread the server starts, left when it ends.
    let threads = DispatchGroup()
    private let maxConnections: Int
    private let settings: ConnectionSettings
    private let state = Mutex(State())

    private struct State {
        var stopping = false
        var nextID = 0
        var connections: [Int: HTTPConnection] = [:]
    }

    init(maxConnections: Int, settings: ConnectionSettings) {
        self.maxConnections = maxConnections
        self.settings = settings
    }

    /// Marks the server as stopping and returns every connection to abort.
    func beginStopping() -> [HTTPConnection] {
        state.withLock { state in
            state.stopping = true
            return Array(state.connections.values)
        }
    }

    func spawn(name: String, _ body: @escaping @Sendable () -> Void) {
        threads.enter()
        let thread = Thread { [threads] in
            body()
            threads.leave()
        }
        thread.name = name
        // The threads run small, flat loops; a smaller stack lets hundreds coexist cheaply.
        thread.stackSize = 512 * 1024
        thread.start()
    }

    /// The listener thread's loop: accept until the wake pipe reports hang-up.
    func acceptConnections(listener: Int32, wake: Int32) {
        defer {
            Socket.closeDescriptor(listener)
            Socket.closeDescriptor(wake)
        }
        var entries = [
            pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            entries[0].revents = 0
            entries[1].revents = 0
            guard poll(&entries, 2, -1) >= 0 || errno == EINTR else { return }
            if entries[1].revents != 0 { return }
            guard entries[0].revents != 0 else { continue }
            switch Socket.acceptConnection(listener) {
            case .success(let descriptor):
                admit(descriptor)
            case .failure(let error) where error.isResourceExhaustion:
                // Out of descriptors: pending clients wait in the backlog until some close.
                if Socket.waitReadable(wake, until: .now + .milliseconds(100)) { return }
            case .failure:
                continue
            }
        }
    }

    private func admit(_ descriptor: Int32) {
        Socket.configureConnection(descriptor, sendTimeout: settings.idleTimeout)
        let connection = HTTPConnection(descriptor: descriptor, settings: settings)
        let id = state.withLock { state -> Int? in
            guard !state.stopping, state.connections.count < maxConnections else { return nil }
            state.nextID += 1
            state.connections[state.nextID] = connection
            return state.nextID
        }
        guard let id else {
            let refusal = HTTPServerResponse.refusal(status: 503, reason: "the server is at its connection limit or stopping")
            Socket.sendWithoutWaiting(descriptor, refusal.wireBytes(includeBody: true, closing: true))
            Socket.closeDescriptor(descriptor)
            return
        }
        spawn(name: "HTTPServer connection \(id)") { [self] in
            connection.serve()
            state.withLock { state in
                _ = state.connections.removeValue(forKey: id)
            }
        }
    }
}
