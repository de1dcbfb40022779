import Foundation
import Testing

/// The inspector in a real terminal (tmux), driven by keys.
@Suite("Inspector in a terminal", .serialized)
struct InspectorEndToEndTests {
    func open(_ arguments: String = "", width: Int = 120, height: Int = 40) async throws -> TmuxSession {
        let binary = try builtChainlab().path
        let session = try TmuxSession("\(binary) \(arguments)", width: width, height: height)
        // The first frame can be slow while the whole suite runs on a busy machine: the
        // default wait is a hang guard long enough for it.
        try await session.waitFor("Requests")
        return session
    }

    @Test("start, n, step with s through basics to a 200")
    func stepToSuccess() async throws {
        let tmux = try await open()
        try tmux.send("n")
        try await tmux.waitFor("⏸ held")
        // One step at a time: a step key that arrives while the request moves between two
        // stops has nothing to step, so keys sent all at once can be lost on a busy machine.
        try await tmux.step(until: "✓ #1 HeroQuery 200")
        let screen = try await tmux.waitFor("✓ #1 HeroQuery 200")
        #expect(screen.contains("transport"))
        #expect(screen.contains("200 · 12ms"))
    }

    @Test("a header edited at a pre-flight stop arrives at the transport")
    func editHeader() async throws {
        let tmux = try await open()
        try tmux.send("n")
        try await tmux.waitFor("⏸ held")
        try tmux.send("s", "s")
        try await tmux.waitFor("Hop 3 AutomaticPersistedQueryInterceptor · pre-flight stop")
        try tmux.send("e")
        try await tmux.waitFor("Edit request headers")
        try tmux.send("C-n")
        try tmux.type("X-Demo")
        try tmux.send("Tab")
        try tmux.type("from-the-editor")
        try tmux.send("Enter")
        try await tmux.waitFor("+ X-Demo from-the-editor in Detail") { $0.replacing(/\ {2,}/, with: " ").contains("+ X-Demo from-the-editor") }
        try tmux.send("c")
        try await tmux.waitFor("✓ #1 HeroQuery 200")
        try tmux.send("Tab", "G", "k", "h")
        let screen = try await tmux.waitFor("Hop 6 transport · pre-flight · sent")
        #expect(screen.replacing(/\ {2,}/, with: " ").contains("X-Demo from-the-editor"))
    }

    @Test("a 401 forced at the transport: Auth refreshes and retries")
    func force401() async throws {
        let tmux = try await open()
        try tmux.send("n")
        try await tmux.waitFor("⏸ held")
        try await tmux.step(until: "Hop 6 transport · pre-flight stop")
        try tmux.send("4")
        try await tmux.waitFor("401")
        try tmux.send("c")
        let screen = try await tmux.waitFor("✓ #1 HeroQuery 200")
        #expect(screen.contains("×2"))
        #expect(screen.contains("attempt 2"))
    }

    @Test("cache-and-network: the network lane steps while the cache lane is held, u switches lanes, both finish")
    func cacheAndNetworkLanes() async throws {
        let tmux = try await open("cache-and-network")
        try tmux.send("n")
        try await tmux.waitFor("⏸ held")
        // Past the cache hit the request has two lanes, each held at its own stop.
        try await tmux.step(until: "⏸ held · cache ◀")
        try await tmux.waitFor("⏸ held · network")
        try await tmux.waitFor("lanes cache+network, cache selected")
        try tmux.send("u")
        try await tmux.waitFor("⏸ held · network ◀")
        // The network lane goes to the server and back while the cached result stays at APQ.
        try await tmux.step(until: "Hop 6 transport · post-flight stop · held · network lane")
        var screen = try await tmux.waitFor("⏸ held · cache")
        #expect(screen.contains("✓ POST /graphql"))
        try tmux.send("u")
        try await tmux.waitFor("⏸ held · cache ◀")
        // The cached result climbs to the top while the network lane waits at the transport.
        try await tmux.step(until: "Hop 1 MaxRetryInterceptor · post-flight stop · held · cache lane")
        screen = try await tmux.waitFor("⏸ held · network")
        #expect(screen.contains("lanes cache+network, cache selected"))
        try tmux.send("u")
        try await tmux.waitFor("⏸ held · network ◀")
        // The network lane to its end: one lane again, still held where the cached result is.
        try await tmux.step(until: "Hop 1 MaxRetryInterceptor · post-flight stop · held · attempt 1 of 1")
        screen = try await tmux.waitFor("⏸ held")
        #expect(screen.contains("lanes cache+network") == false)
        try tmux.send("c")
        try await tmux.waitFor("✓ #1 HeroQuery 200")
    }

    /// Holds #1 and #2 at the token manager's refresh stop, so both have read the same
    /// refresh token, then releases them in the order given. The first refresh sent wins
    /// and its request succeeds on attempt 2; the second presents a used refresh token,
    /// gets invalid_grant (the backend revokes the family) and its request fails.
    func race(releasing first: Int, then second: Int) async throws -> (TmuxSession, [Substring]) {
        let tmux = try await open("refresh-storm")
        try tmux.send("n", "n")
        try await tmux.waitFor("#2 HeroQuery")
        for request in [1, 2] {
            try tmux.send(request == 1 ? "g" : "G")
            try await tmux.waitFor("Chain · #\(request) HeroQuery")
            try await tmux.step(until: "TokenManager refresh · stop · held")
        }
        try tmux.send(first == 1 ? "g" : "G", "c")
        try await tmux.waitFor("✓ #\(first) HeroQuery")
        try tmux.send(second == 1 ? "g" : "G", "c")
        let screen = try await tmux.waitFor("✕ #\(second) HeroQuery")
        return (tmux, screen.split(separator: "\n"))
    }

    @Test("the refresh race in refresh-storm, released #1 then #2: #1 wins, #2 gets invalid_grant, readable after the fact")
    func raceOneThenTwo() async throws {
        let (tmux, lines) = try await race(releasing: 1, then: 2)
        #expect(lines.contains { $0.contains("✓ #1 HeroQuery 200") && $0.contains("×2") })
        #expect(lines.contains { $0.contains("✕ #2 HeroQuery invalid_grant") })
        // Finished, #2 still shows the refusal that explains it: its refresh row and answer.
        try tmux.send("Tab", "G")
        let screen = try await tmux.waitFor("#2's refresh answer") {
            $0.contains("TokenManager refresh · answer · attempt 1 of 1") && $0.contains("the token endpoint refused the refresh: invalid_grant")
        }
        #expect(screen.contains("✕ 400 invalid_grant"))
    }

    @Test("the refresh race in refresh-storm, released #2 then #1: #2 wins, #1 gets invalid_grant")
    func raceTwoThenOne() async throws {
        let (_, lines) = try await race(releasing: 2, then: 1)
        #expect(lines.contains { $0.contains("✓ #2 HeroQuery 200") && $0.contains("×2") })
        #expect(lines.contains { $0.contains("✕ #1 HeroQuery invalid_grant") })
    }

    @Test("[ and ] show a finished request's earlier attempt, and back")
    func attemptNavigation() async throws {
        let tmux = try await open("token-expiry")
        try tmux.send("n")
        try await tmux.waitFor("⏸ held")
        try tmux.send("c")
        try await tmux.waitFor("attempt 2 of 2")
        // A frame reaches tmux line by line, so a capture can hold the new title over the
        // old rows: each wait is for the whole frame the key should bring.
        try tmux.send("[")
        try await tmux.waitFor("attempt 1 of 2 with its 401 and the refresh") {
            $0.contains("attempt 1 of 2") && $0.contains("401 · 12ms") && $0.contains("↻ TokenManager refresh")
        }
        try tmux.send("]")
        try await tmux.waitFor("attempt 2 of 2 with its 200") { $0.contains("attempt 2 of 2") && $0.contains("200 · 12ms") }
    }

    @Test("S draws a finished token-expiry as a sequence diagram; a selected row is selected in Detail too; S again restores the hops")
    func sequenceDiagram() async throws {
        let tmux = try await open("token-expiry")
        try tmux.send("n")
        try await tmux.waitFor("⏸ held")
        try tmux.send("c")
        try await tmux.waitFor("attempt 2 of 2")
        try tmux.send("S")
        var screen = try await tmux.waitFor("Sequence · #1 HeroQuery · 2 attempts")
        #expect(screen.contains("↻ attempt 2"))
        #expect(screen.contains("received 200"))
        // The first row: #1 held before MaxRetryInterceptor (step mode); then its pre-flight,
        // then AuthInterceptor's.
        try tmux.send("g")
        screen = try await tmux.waitFor("Hop 1 MaxRetryInterceptor · pre-flight · attempt 1 of 2")
        #expect(screen.contains("⏸ held at MaxRetry (step)"))
        try tmux.send("j", "j")
        screen = try await tmux.waitFor("Hop 2 AuthInterceptor · pre-flight · attempt 1 of 2")
        #expect(screen.contains("GraphQL request (as AuthInterceptor handed it on)"))
        try tmux.send("A")
        try await tmux.waitFor("Sequence · every request")
        try tmux.send("S")
        try await tmux.waitFor("Chain · #1 HeroQuery · attempt 1 of 2")
    }

    @Test("m then = compares stale-token's first two sends: the Authorization did not change across the refresh")
    func compareMarked() async throws {
        let tmux = try await open("stale-token")
        try tmux.send("n")
        try await tmux.waitFor("⏸ held")
        try tmux.send("c")
        try await tmux.waitFor("✕ #1 HeroQuery")
        try tmux.send("S", "g")
        try await tmux.waitFor("Hop 1 MaxRetryInterceptor · pre-flight · attempt 1 of 5")
        try await tmux.press("j", until: "Hop 6 transport · pre-flight · sent · attempt 1 of 5")
        try tmux.send("m")
        try await tmux.waitFor("marked #1 attempt 1 · Hop 6 transport · sent")
        try await tmux.press("j", until: "Hop 6 transport · pre-flight · sent · attempt 2 of 5")
        try tmux.send("=")
        let screen = try await tmux.waitFor("Compare A ⇄ B")
        #expect(screen.contains("⚠ Authorization did not change, though a refresh succeeded between them"))
        #expect(screen.replacing(/\ {2,}/, with: " ").contains("= Authorization Bearer ••••"))
        try tmux.send("Escape")
        try await tmux.waitFor("closed compare") { !$0.contains("Compare A ⇄ B") }
    }

    @Test("+ maximizes the focused pane and restores the layout")
    func maximize() async throws {
        let tmux = try await open(width: 80, height: 24)
        try tmux.send("n")
        try await tmux.waitFor("⏸ held")
        try tmux.send("Tab", "+")
        let screen = try await tmux.waitFor("maximized Chain pane") { $0.hasPrefix("┌ Chain") && !$0.contains("Requests") }
        #expect(screen.contains("1 MaxRetryInterceptor"))
        try tmux.send("+")
        try await tmux.waitFor("restored layout") { $0.hasPrefix("┌ Requests") && $0.contains("Timeline") }
    }

    @Test("resize to 20x6 shows a short message, and back restores the screen")
    func resize() async throws {
        let tmux = try await open()
        try tmux.resize(width: 20, height: 6)
        try await tmux.waitFor("enlarge the")
        try tmux.resize(width: 120, height: 40)
        try await tmux.waitFor("Timeline")
    }

    @Test("quitting with a paused request asks, then leaves the terminal sane")
    func quitRestoresTerminal() async throws {
        let binary = try builtChainlab().path
        let tmux = try TmuxSession("sh -c '\(binary); s=$?; stty -a; echo chainlab-exit=$s; sleep 60'")
        try await tmux.waitFor("Requests")
        try tmux.send("n")
        try await tmux.waitFor("⏸ held")
        try tmux.send("q")
        try await tmux.waitFor("Quit?")
        try tmux.send("y")
        let screen = try await tmux.waitFor("chainlab-exit=0")
        #expect(screen.contains(" icanon") && screen.contains(" echo"))
        #expect(!screen.contains("-icanon") && !screen.contains("-echo "))
    }

    @Test("a signal, a crash's included, restores the terminal: modes, cursor and main screen", arguments: [
        (SIGTERM, 143), (SIGINT, 130), (SIGHUP, 129), (SIGQUIT, 131),
        (SIGSEGV, 139), (SIGBUS, 135), (SIGILL, 132), (SIGFPE, 136), (SIGABRT, 134), (SIGTRAP, 133),
    ])
    func signalRestoresTerminal(signal: Int32, status: Int) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chainlab-signal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let pidFile = folder.appendingPathComponent("pid").path
        let script = folder.appendingPathComponent("run.sh")
        try """
            #!/bin/sh
            sh -c 'echo $$ > "$1"; exec "$2"' sh '\(pidFile)' '\(try builtChainlab().path)'
            s=$?
            stty -a
            echo chainlab-exit=$s
            sleep 60
            """.write(to: script, atomically: true, encoding: .utf8)
        let tmux = try TmuxSession("sh \(script.path)")
        try await tmux.waitFor("Requests")
        let pid = try #require(Int32(String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        kill(pid, signal)
        // After a crash the Swift runtime's report comes first, which can take a while.
        let screen = try await tmux.waitFor("chainlab-exit=\(status)", timeout: status > 131 ? .seconds(60) : .seconds(10))
        #expect(screen.contains(" icanon") && screen.contains(" echo"))
        #expect(!screen.contains("-icanon"))
        // Out of the alternate screen, with the cursor shown.
        #expect(try tmux.tmux(["display-message", "-p", "-t", "s", "#{alternate_on} #{cursor_flag}"]).stdout == "0 1\n")
    }

    @Test("Ctrl-\\ (SIGQUIT) quits like SIGTERM: no crash report, terminal restored, exit 131")
    func controlBackslash() async throws {
        let binary = try builtChainlab().path
        // The terminal sends SIGQUIT to the whole foreground group: the shell here must
        // survive it (an interactive shell puts chainlab in a group of its own).
        let tmux = try TmuxSession("sh -c 'trap \"\" QUIT; \(binary) 2>&1; s=$?; stty -a; echo chainlab-exit=$s; sleep 60'")
        try await tmux.waitFor("Requests")
        try tmux.send("C-\\")
        let screen = try await tmux.waitFor("chainlab-exit=131")
        #expect(screen.contains(" icanon") && screen.contains(" echo"))
        #expect(!screen.contains("Crash") && !screen.contains("crashed"))
    }

    @Test("not a terminal: a clear error pointing at chainlab trace, exit 2")
    func notATerminal() throws {
        let result = try runProcess(try builtChainlab().path, ["basics"])
        #expect(result.status == 2)
        #expect(result.stderr == "chainlab: the inspector needs a terminal (standard input and output must be a TTY); for a headless run use 'chainlab trace basics'\n")
    }
}
