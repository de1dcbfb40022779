import Backend
import ChainKit
import Dispatch
import Foundation
import Outbound
import Serve
import Synchronization
import Vocabulary

/// `chainlab serve`: the lab backend over HTTP/1.1 until SIGINT or SIGTERM.
struct ServeCommand {
    static let usage = """
        USAGE: chainlab serve [--port N] [--host ADDR] [--token-ttl SECONDS]
                              [--auth-failure status401|graphQLError200|emptyBody401]
                              [--latency SECONDS] [--hostile]

        Serves the lab backend over HTTP/1.1 so real clients (curl, an app in a simulator) can
        use it: GraphQL at /graphql, OAuth at /oauth/token (user demo, password demo), REST at
        /heroes, control at /_lab/ (expire-tokens, auth-mode, fail-next, state). Token TTLs run
        on the wall clock. Prints the address it listens on, then serves until SIGINT or SIGTERM.

          --port N            the port to listen on (default 4000; 0 picks a free one)
          --host ADDR         the numeric address to listen on (default 127.0.0.1); any
                              non-loopback address lets other machines take tokens
          --token-ttl SECONDS how long access tokens stay valid (default 300)
          --auth-failure MODE how a missing or expired token is refused: status401 (default),
                              graphQLError200 or emptyBody401
          --latency SECONDS   how long every non-control response is held back (default 0)
          --hostile           put terminal escape sequences into headers and hero names

        chainlab serve --upstream URL [--port N] [--host ADDR] [--har-max-body BYTES]
                       [--har-max-total BYTES] [--max-connections N]
                       [--otlp-endpoint URL [--otlp-header H]...] [--service-name NAME]
                       [--cacert FILE | --insecure]
        A fault-injecting reverse proxy in front of a real server: every request is forwarded
        to URL (method, target under URL's path, headers but hop-by-hop ones, body; Host
        rewritten; nothing added) and the answer streamed back as it arrives, read from URL
        only as fast as the client takes it; one line is printed per exchange when its answer
        has gone out. A target that climbs above URL's path (/../x) is refused with 400.
        Control at /_lab/ (a "match" of {"path": P} and/or {"operationName": N} narrows each):
          POST /_lab/fail-next          {"count": N, "status": 400-599, "headers": {"Retry-After": "2"}}
          POST /_lab/unauthorized-next  {"count": N, "mode": "status401"|"graphQLError200"}
          POST /_lab/latency            {"seconds": S}
          POST /_lab/reset              (no injections, no latency, an empty log)
          GET  /_lab/state, GET /_lab/har (the exchanges kept as HAR 1.2, secrets masked)
        An upstream that cannot be reached gets the client 502 with a JSON reason.

          --upstream URL      the real server's base URL (http:// or https://)
          --har-max-body N    the most of each body the HAR keeps (default 1 MiB)
          --har-max-total N   the most the HAR keeps in all (default 64 MiB); past it the oldest
                              exchanges lose their bodies (marked), then go. N takes K, M or G
          --max-connections N clients served at once, 1-4096 (default 256; more get 503); each
                              holds at most one request body of up to 16 MiB
          --otlp-endpoint URL send each exchange as a span to an OTLP/HTTP receiver
          --otlp-header H     add header H ('Name: value') to those requests; may be repeated
          --service-name NAME the spans' service.name (default chainlab)
        \(TLSOptions.usage)
        """

    /// The longest `--token-ttl` and `--latency`: a day.
    static let longestSeconds: Double = 24 * 60 * 60

    var port: UInt16 = 4000
    var address = ListenAddress.ipv4Loopback
    var settings = LabBackend.Settings()
    var upstream: URL?
    var recording = ProxyRecordingLimits()
    var maxConnections = 256
    var otlp = OTLPOptions()
    var tls = TLSOptions()
    /// Where the proxy's spans go, from ``otlp``.
    private(set) var otlpSender: OTLPSender?

    /// The lab-backend options given, in order, for the message that refuses them with
    /// `--upstream`.
    private var labOptions: [String] = []
    /// The proxy options given, for the message that refuses them without `--upstream`.
    private var proxyOptions: [String] = []

    init(arguments: [String]) throws {
        try Self.parser.parse(arguments, into: &self)
        if upstream != nil, let option = labOptions.first {
            throw CommandLineError("\(option) configures the lab backend, which --upstream replaces; use POST /_lab/latency, /_lab/fail-next or /_lab/unauthorized-next on the proxy")
        }
        if upstream == nil, let option = proxyOptions.first {
            throw CommandLineError("\(option) configures the proxy; it needs --upstream URL")
        }
        // serve has no --timeout: its OTLP tries end within the default 30 s, as the proxy's
        // upstream exchanges do.
        otlpSender = try otlp.sender(timeout: 30)
    }

    static var parser: CommandLineParser<Self> {
        let options: [CommandOption<Self>] = [
            .value("--port") { command, value in
                guard let port = UInt16(value) else {
                    throw CommandLineError("--port needs a whole number in 0...65535, got '\(VisibleEscapes.escape(value))'")
                }
                command.port = port
            },
            .value("--host") { command, value in
                guard let address = ListenAddress(value) else {
                    throw CommandLineError("--host needs a numeric IPv4 or IPv6 address such as 127.0.0.1 or ::1, got '\(VisibleEscapes.escape(value))'")
                }
                command.address = address
            },
            labOnly(.value("--token-ttl") { command, value in
                guard let seconds = Double(value), seconds > 0, seconds <= longestSeconds else {
                    throw CommandLineError("--token-ttl needs seconds greater than 0 and at most \(Int(longestSeconds)), got '\(VisibleEscapes.escape(value))'")
                }
                command.settings.tokenTTL = seconds
            }),
            labOnly(.value("--auth-failure") { command, value in
                guard let mode = LabBackend.AuthFailureMode(rawValue: value) else {
                    let valid = LabBackend.AuthFailureMode.allCases.map(\.rawValue).joined(separator: ", ")
                    throw CommandLineError("unknown auth failure mode '\(VisibleEscapes.escape(value))'; valid: \(valid)")
                }
                command.settings.authFailureMode = mode
            }),
            labOnly(.value("--latency") { command, value in
                guard let seconds = Double(value), seconds >= 0, seconds <= longestSeconds else {
                    throw CommandLineError("--latency needs seconds in 0...\(Int(longestSeconds)), got '\(VisibleEscapes.escape(value))'")
                }
                command.settings.latency = seconds
            }),
            labOnly(.flag("--hostile") { $0.settings.hostile = true }),
            .value("--upstream") { $0.upstream = try EndpointOptions.httpURL($1, option: "--upstream") },
            proxyOnly(.value("--har-max-body") { $0.recording.bodyBytes = try byteCount($1, option: "--har-max-body") }),
            proxyOnly(.value("--har-max-total") { $0.recording.totalBytes = try byteCount($1, option: "--har-max-total") }),
            proxyOnly(.value("--max-connections") { command, value in
                guard let count = Int(value), (1...4096).contains(count) else {
                    throw CommandLineError("--max-connections needs a whole number in 1...4096, got '\(VisibleEscapes.escape(value))'")
                }
                command.maxConnections = count
            }),
        ] + OTLPOptions.options.map { proxyOnly($0.on(\.otlp)) } + TLSOptions.options.map { proxyOnly($0.on(\.tls)) }
        let valid = options.map(\.names[0]).joined(separator: ", ")
        return CommandLineParser(command: "serve", options: options, usage: usage) { _, argument in
            throw CommandLineError("serve takes no arguments, got '\(VisibleEscapes.escape(argument))'; valid options: \(valid)")
        }
    }

    /// An option that configures the lab backend, which a proxy does not have.
    private static func labOnly(_ option: CommandOption<Self>) -> CommandOption<Self> {
        CommandOption(names: option.names, takesValue: option.takesValue, repeatable: option.repeatable) { command, value in
            command.labOptions.append(option.names[0])
            try option.apply(&command, value)
        }
    }

    /// An option that configures the proxy, which the lab backend does not have.
    private static func proxyOnly(_ option: CommandOption<Self>) -> CommandOption<Self> {
        CommandOption(names: option.names, takesValue: option.takesValue, repeatable: option.repeatable) { command, value in
            command.proxyOptions.append(option.names[0])
            try option.apply(&command, value)
        }
    }

    /// The largest byte count an option takes: 1 TiB.
    static let largestByteCount = 1 << 40

    /// `65536`, `64K`, `16M`, `1G` (powers of 1024) as a number of bytes.
    static func byteCount(_ text: String, option: String) throws -> Int {
        let units: [Character: Int] = ["K": 1 << 10, "k": 1 << 10, "M": 1 << 20, "m": 1 << 20, "G": 1 << 30, "g": 1 << 30]
        let unit = text.last.flatMap { units[$0] }
        let digits = unit == nil ? Substring(text) : text.dropLast()
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let number = Int(digits), number >= 0,
            number <= largestByteCount / (unit ?? 1)
        else {
            throw CommandLineError("\(option) needs a number of bytes such as 65536, 512K, 16M or 1G (at most 1024G), got '\(VisibleEscapes.escape(text))'")
        }
        return number * (unit ?? 1)
    }

    /// Serves until SIGINT or SIGTERM; returns the exit status.
    func run() async throws -> Int32 {
        HTTPSTrust.install(try tls.trust(environment: ProcessInfo.processInfo.environment))
        if let upstream { return await proxy(to: upstream) }
        let stopSignal = StopSignal()
        if !address.isLoopback {
            writeStandardError("""
                chainlab serve: warning: \(address.host) is not a loopback address; anyone who can reach it \
                can get tokens from the lab (user demo, password demo) and reconfigure it through /_lab/

                """)
        }
        let service = LabHTTPService(backend: .onWallClock(settings: settings), host: address.host, port: port)
        let boundPort: UInt16
        do {
            boundPort = try service.start()
        } catch {
            writeStandardError("chainlab: serve cannot listen on \(address.host) port \(port): \(error)\n")
            return 1
        }
        let line = "chainlab serve: listening on http://\(address.authority(port: boundPort)) "
            + "(GraphQL at /graphql, OAuth at /oauth/token, control at /_lab/)\n"
        writeStandardOutput(line)
        let received = await stopSignal.wait()
        service.stop()
        writeStandardError("chainlab serve: stopped on \(received)\n")
        return 0
    }
}

extension ServeCommand {
    /// Runs the fault-injecting proxy in front of `upstream` until SIGINT or SIGTERM.
    func proxy(to upstream: URL) async -> Int32 {
        let stopSignal = StopSignal()
        if !address.isLoopback {
            let warning = "chainlab serve: warning: \(address.host) is not a loopback address; anyone who can reach it can send "
                + "requests to \(RemoteFailure.displayURL(upstream)) through the proxy and reconfigure it through /_lab/\n"
            FileHandle.standardError.write(Data(warning.utf8))
        }
        let proxy = UpstreamProxy(
            upstream: upstream, host: address.host, port: port, recording: recording, maxConnections: maxConnections, otlp: otlpSender.map { ($0, otlp.serviceName) }
        ) { line in
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        }
        let boundPort: UInt16
        do {
            boundPort = try proxy.start()
        } catch {
            FileHandle.standardError.write(Data("chainlab: serve cannot listen on \(address.host) port \(port): \(error)\n".utf8))
            return 1
        }
        let bound = UpstreamProxy.memoryBound(recording: recording, maxConnections: maxConnections)
        let line = "chainlab serve: proxying http://\(address.authority(port: boundPort)) to \(RemoteFailure.displayURL(upstream)) "
            + "(control at /_lab/: fail-next, unauthorized-next, latency, state, har; memory bound \(bound >> 20) MiB)\n"
        FileHandle.standardOutput.write(Data(line.utf8))
        let received = await stopSignal.wait()
        await proxy.stop()
        FileHandle.standardError.write(Data("chainlab serve: stopped on \(received)\n".utf8))
        return 0
    }
}

/// Waits for SIGINT or SIGTERM. The signals' default action (ending the process at once) is
/// turned off from creation on, so one that arrives while the server starts is not lost.
final class StopSignal {
    /// Held so the sources stay installed for the life of the command.
    private let sources: [any DispatchSourceSignal]
    private let latch = SignalLatch()

    init() {
        let queue = DispatchQueue(label: "chainlab serve signals")
        var sources: [any DispatchSourceSignal] = []
        for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [latch] in latch.record(name) }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    /// The name of the first signal received, once one arrives.
    func wait() async -> String {
        await latch.wait()
    }
}

/// The first signal's name, and the task waiting for it.
private final class SignalLatch: Sendable {
    private let state = Mutex<State>(State())

    private struct State {
        var name: String?
        var waiter: CheckedContinuation<String, Never>?
    }

    func record(_ name: String) {
        let waiter = state.withLock { state -> CheckedContinuation<String, Never>? in
            if state.name == nil { state.name = name }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: name)
    }

    func wait() async -> String {
        await withCheckedContinuation { continuation in
            let name = state.withLock { state -> String? in
                if let name = state.name { return name }
                state.waiter = continuation
                return nil
            }
            if let name { continuation.resume(returning: name) }
        }
    }
}
