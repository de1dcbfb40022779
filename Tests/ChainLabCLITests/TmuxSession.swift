import Foundation
import TestSupport
import Testing

/// The built `chainlab` binary, next to the test bundle in the products folder: on Linux
/// the `.xctest` is an executable there, on macOS a bundle there. This target's dependency on
/// `chainlab` builds it first.
func builtChainlab() throws -> URL {
    var folders: [URL] = [Bundle.main.bundleURL.deletingLastPathComponent()]
    var folder = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.deletingLastPathComponent()
    for _ in 0..<4 {
        folders.append(folder)
        folder = folder.deletingLastPathComponent()
    }
    for candidate in folders.map({ $0.appendingPathComponent("chainlab") }) where FileManager.default.isExecutableFile(atPath: candidate.path) {
        return candidate
    }
    throw CLITestError(message: "chainlab is not built next to the tests (looked in \(folders.map(\.path)))")
}

struct CLITestError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// Runs a command to completion and returns its exit status and output.
///
/// Output goes through temporary files rather than pipes: a daemon the command starts (the
/// tmux server) inherits them, and a pipe would then never reach end of file.
func runProcess(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
    let folder = FileManager.default.temporaryDirectory
    let outURL = folder.appendingPathComponent("chainlab-out-\(UUID().uuidString)")
    let errURL = folder.appendingPathComponent("chainlab-err-\(UUID().uuidString)")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    defer {
        try? FileManager.default.removeItem(at: outURL)
        try? FileManager.default.removeItem(at: errURL)
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let (out, err) = try spawnSerially {
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return (out, err)
    }
    process.waitUntilExit()
    try out.close()
    try err.close()
    let stdout = try Data(contentsOf: outURL), stderr = try Data(contentsOf: errURL)
    return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
}

/// A private tmux server running one program at a fixed size, driven with keys and read
/// back from the screen. Waits poll the screen until text appears or a deadline passes.
final class TmuxSession {
    let socket = "chainlab-test-\(UUID().uuidString.prefix(8))"

    /// Runs tmux with every file descriptor above stderr closed first: the tmux server
    /// outlives the call, and descriptors it inherited from the test process would keep
    /// that process waiting for them.
    @discardableResult
    func tmux(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let closeAndRun = #"for fd in /proc/$$/fd/*; do fd=${fd##*/}; [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done; exec /usr/bin/tmux "$@""#
        return try runProcess("/bin/bash", ["-c", closeAndRun, "bash", "-L", socket] + arguments)
    }

    /// Starts `command` (a shell command line) in a `width`×`height` window.
    init(_ command: String, width: Int = 120, height: Int = 40) throws {
        let line = "env TERM=xterm-256color SWIFT_BACKTRACE=interactive=no LANG=C.UTF-8 LC_ALL=C.UTF-8 \(command)"
        let result = try tmux(["-f", "/dev/null", "new-session", "-d", "-s", "s", "-x", "\(width)", "-y", "\(height)", line])
        guard result.status == 0 else { throw CLITestError(message: "tmux did not start: \(result.stderr)") }
        try tmux(["set-option", "-g", "status", "off"])
        try tmux(["set-option", "-g", "remain-on-exit", "on"])
    }

    deinit {
        // Killing the session ends the program in it (SIGHUP) and, with nothing left, the
        // server. `kill-server` alone is not enough: the server stops itself with SIGTERM,
        // which it ignores when it inherited an ignored SIGTERM from the test process.
        _ = try? tmux(["kill-session", "-t", "s"])
        _ = try? tmux(["kill-server"])
    }

    /// Types keys (tmux key names: `n`, `Enter`, `Tab`, `C-n`, `Escape`).
    func send(_ keys: String...) throws {
        try tmux(["send-keys", "-t", "s"] + keys)
    }

    /// Types text literally.
    func type(_ text: String) throws {
        try tmux(["send-keys", "-t", "s", "-l", text])
    }

    func resize(width: Int, height: Int) throws {
        try tmux(["resize-window", "-t", "s", "-x", "\(width)", "-y", "\(height)"])
    }

    /// The screen as plain text.
    func screen() throws -> String {
        try tmux(["capture-pane", "-p", "-t", "s"]).stdout
    }

    /// Waits until the screen satisfies `condition`; returns the last screen seen.
    ///
    /// The timeout is a hang guard, not a measure: the whole suite shares one process and a
    /// busy machine, so a screen can take many seconds to come. The screen is looked at once
    /// more after the deadline, so a wait that was itself held up past it still sees the
    /// screen as it is.
    @discardableResult
    func waitFor(_ description: String, timeout: Duration = .seconds(90), _ condition: (String) -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        var heldBefore = false
        while ContinuousClock.now < deadline {
            let current = try screen()
            // The condition must hold on two captures in a row: a capture can land while a
            // frame is still being written, with its top drawn and the rest not yet.
            if condition(current) {
                if heldBefore { return current }
                heldBefore = true
            } else {
                heldBefore = false
            }
            try await Task.sleep(for: .milliseconds(40))
        }
        let last = try screen()
        if condition(last) { return last }
        Issue.record("timed out waiting for \(description); the screen was:\n\(last)", sourceLocation: sourceLocation)
        return last
    }

    /// Presses `key` until `text` is on the screen, waiting for the screen to change after
    /// each press so no press lands before the previous one was drawn.
    func press(_ key: String, until text: String, limit: Int = 40, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        for _ in 0..<limit {
            let before = try screen()
            if before.contains(text) { return }
            try send(key)
            // Wait until the screen has changed and then stayed the same for a moment: one
            // press can redraw more than once (the key, then the lab moving). On a loaded
            // machine the lab can take a while between the two, and a key sent meanwhile acts
            // on the next stop, so the moment is half a second.
            let deadline = ContinuousClock.now + .seconds(3)
            var last = before
            var stableSince = ContinuousClock.now
            while ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(25))
                let current = try screen()
                if current != last {
                    last = current
                    stableSince = ContinuousClock.now
                } else if current != before, ContinuousClock.now - stableSince >= .milliseconds(500) {
                    break
                }
            }
        }
        try await waitFor(text, timeout: .milliseconds(100), sourceLocation: sourceLocation)
    }

    /// Steps the selected request with `key` (`s`) until `text` is on the screen. After each
    /// step it waits for the request to settle: held at a stop other than before (the Chain
    /// pane's held cells or its title changed and a held cell is back), or finished. A quiet
    /// screen is not enough: on a loaded machine the lab can take seconds to move after the
    /// key's own redraw, and a step sent meanwhile would carry the request past the next stop.
    func step(_ key: String = "s", until text: String, limit: Int = 40, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        for _ in 0..<limit {
            if try screen().contains(text) { return }
            guard try await stepOnce(key) else { break }
        }
        try await waitFor(text, timeout: .milliseconds(100), sourceLocation: sourceLocation)
    }

    /// Presses `key` exactly `times` times, as a walkthrough says, each once the request has
    /// settled at its next stop.
    func step(_ key: String = "s", times: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        for press in 1...times where try await !stepOnce(key) {
            Issue.record("step \(press) of \(times) did not move the request; the screen was:\n\(try screen())", sourceLocation: sourceLocation)
            return
        }
    }

    /// One step, then a wait until the request is held at another stop or has finished;
    /// false when it had finished already or never moved.
    private func stepOnce(_ key: String) async throws -> Bool {
        let start = Self.whereHeld(try screen())
        // A finished request has nothing left to step.
        if start.finished { return false }
        try send(key)
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            try await Task.sleep(for: .milliseconds(25))
            let now = Self.whereHeld(try screen())
            if now.lines != start.lines, now.isHeld || now.finished { break }
            if ContinuousClock.now >= deadline { return false }
        }
        // Settled; let the rest of the frame land.
        try await Task.sleep(for: .milliseconds(100))
        return true
    }

    /// Where the selected request is, as the screen shows it: the Chain pane's title and held
    /// (or waiting) cells, whether it is at a stop, and whether the request has finished. A
    /// request with two lanes is at a stop when its selected lane (◀) is: while that lane
    /// moves, the other lane's stop stays on the screen.
    static func whereHeld(_ screen: String) -> (lines: [Substring], isHeld: Bool, finished: Bool) {
        let lines = screen.split(separator: "\n")
        let title = lines.first { $0.contains("┌ Chain · #") }
        let held = lines.filter { $0.contains("⏸ held") || $0.contains("… waiting its turn") }
        let hasLanes = held.contains { $0.contains(/(held|turn) · (cache|network)/) }
        let isHeld = hasLanes ? held.contains { $0.contains("◀") } : !held.isEmpty
        var finished = false
        if let title, let number = title.split(separator: "#").dropFirst().first?.prefix(while: \.isNumber) {
            finished = lines.contains { $0.contains("✓ #\(number) ") || $0.contains("✕ #\(number) ") }
        }
        return ((title.map { [$0] } ?? []) + held, isHeld, finished)
    }

    /// Waits until `text` is on the screen.
    @discardableResult
    func waitFor(_ text: String, timeout: Duration = .seconds(90), sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        try await waitFor("\"\(text)\"", timeout: timeout, { $0.contains(text) }, sourceLocation: sourceLocation)
    }
}
