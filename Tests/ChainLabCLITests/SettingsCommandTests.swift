import Foundation
import Testing

/// The config file, themes, ASCII and the mouse, through the built binary.
@Suite("Settings")
struct SettingsCommandTests {
    func configFile(_ text: String) throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("chainlab-config-\(UUID().uuidString).json")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    @Test("a mistake in the config file: its JSON path on stderr, exit 2, the terminal never opened")
    func badConfig() throws {
        let file = try configFile(#"{"keys": {"step": "n"}}"#)
        defer { try? FileManager.default.removeItem(at: file) }
        // No TTY here: a config error must come before the inspector asks for one.
        let result = try runProcess(try builtChainlab().path, ["--config", file.path])
        #expect(result.status == 2)
        #expect(result.stderr == "chainlab: config file \(file.path): keys.step: key n is bound twice: to newOperation and to step\n")
        #expect(result.stdout == "")
    }

    @Test("the config file is found under XDG_CONFIG_HOME, and checked even when the key table is asked for")
    func xdgConfig() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chainlab-xdg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("chainlab"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try #"{"theme": "sepia"}"#.write(to: folder.appendingPathComponent("chainlab/config.json"), atomically: true, encoding: .utf8)
        let result = try runProcess(try builtChainlab().path, ["keys"], environment: ["XDG_CONFIG_HOME": folder.path, "PATH": "/usr/bin:/bin"])
        #expect(result.status == 2)
        #expect(result.stderr == "chainlab: config file \(folder.path)/chainlab/config.json: theme: expected one of dark, light, high-contrast, got \"sepia\"\n")
    }

    @Test("chainlab keys shows the bindings in force")
    func keysInForce() throws {
        let file = try configFile(#"{"keys": {"step": "space", "quit": ["q", "Ctrl-K"]}}"#)
        defer { try? FileManager.default.removeItem(at: file) }
        let text = try runProcess(try builtChainlab().path, ["keys", "--config", file.path])
        #expect(text.status == 0)
        #expect(text.stdout.contains("\nSpace      step — step the selected request one hop\n"))
        #expect(text.stdout.contains("\nq/Ctrl-K   quit — "))
        let markdown = try runProcess(try builtChainlab().path, ["keys", "--markdown", "--config", file.path])
        #expect(markdown.stdout.contains("| `Space` | step | step the selected request one hop |\n"))
        #expect(markdown.stdout.contains("| `q` `Ctrl-K` | quit |"))
    }
}

@Suite("Mouse in a terminal", .serialized)
struct MouseEndToEndTests {
    func open(_ arguments: String = "") async throws -> TmuxSession {
        let session = try TmuxSession("\(try builtChainlab().path) \(arguments)")
        // The first frame can be slow while the whole suite runs on a busy machine.
        try await session.waitFor("Requests", timeout: .seconds(30))
        return session
    }

    /// Which mouse modes the program asked tmux for: button events (1002, which takes over
    /// from 1000 in tmux) and SGR reports (1006).
    func mouseModes(_ tmux: TmuxSession) throws -> String {
        try tmux.tmux(["display-message", "-p", "-t", "s", "#{mouse_button_flag}#{mouse_sgr_flag}"]).stdout
    }

    /// Sends a left click at a cell (0-based) as the terminal would: an SGR press and release.
    func click(_ tmux: TmuxSession, x: Int, y: Int) throws {
        try tmux.type("\u{1B}[<0;\(x + 1);\(y + 1)M\u{1B}[<0;\(x + 1);\(y + 1)m")
    }

    @Test("a click on a request selects it; a click on a hint runs its key")
    func click() async throws {
        let tmux = try await open()
        #expect(try mouseModes(tmux) == "11\n")
        try tmux.send("n")
        try await tmux.waitFor("⏸ #1 HeroQuery")
        try tmux.send("n")
        let screen = try await tmux.waitFor("⏸ #2 HeroQuery")
        let lines = screen.components(separatedBy: "\n")
        let row = try #require(lines.firstIndex { $0.contains("⏸ #2 HeroQuery") })
        try click(tmux, x: 4, y: row)
        // The hint line as it is now, with #2 selected.
        let now = try await tmux.waitFor("Chain · #2 HeroQuery").components(separatedBy: "\n")
        let hints = try #require(now.last { $0.contains("? help") })
        let help = try #require(hints.range(of: "? help"))
        try click(tmux, x: hints.distance(from: hints.startIndex, to: help.lowerBound), y: now.lastIndex(of: hints)!)
        try await tmux.waitFor("Help (j/k")
    }

    @Test("--no-mouse leaves the mouse to the terminal: no mouse mode is asked for, keys still work")
    func noMouse() async throws {
        let tmux = try await open("--no-mouse")
        #expect(try mouseModes(tmux) == "00\n")
        try tmux.send("n")
        try await tmux.waitFor("⏸ #1 HeroQuery")
    }

    @Test("mouse off in the config file too; on quit the mouse modes are turned off again")
    func configAndQuit() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("chainlab-config-\(UUID().uuidString).json")
        try #"{"mouse": false, "theme": "light"}"#.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let off = try await open("--config \(file.path)")
        #expect(try mouseModes(off) == "00\n")
        let on = try await open("--ascii")
        #expect(try mouseModes(on) == "11\n")
        try await on.waitFor("+ Requests ---")
        try on.send("q")
        try await on.waitFor("ascii quit", { _ in (try? self.mouseModes(on)) == "00\n" })
    }
}
