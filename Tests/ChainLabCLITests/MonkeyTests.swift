import Foundation
import Testing
import TestSupport

/// A bounded monkey: random keys, raw bytes and resizes thrown at the inspector in a real
/// terminal (tmux), after which it must still be running, quit with status 0 and leave the
/// terminal's modes sane. The sequence is seeded, so a failure replays.
///
/// Nothing here is timed: on a loaded machine the inspector may take a while to work through
/// what the monkey typed, so every wait polls the screen with a generous deadline, and the
/// way out (close what is open, quit, confirm) is tried again until the program has ended.
@Suite("Inspector under a monkey", .serialized)
struct MonkeyTests {
    /// tmux key names: the keymap's keys, navigation, editing keys.
    static let keys = [
        "n", "N", "s", "c", "C", "B", "b", "e", "4", "r", "x", "+", "T", "o", "w", "y", "/", "v", "i", "Tab", "BTab",
        "k", "j", "Up", "Down", "Left", "Right", "PPage", "NPage", "Home", "End", "g", "G", "Enter", "Escape", "?",
        "BSpace", "DC", "C-n", "C-d", "C-a", "C-e", "F1", "F5", "a", "Z", "1", "0", " ", "L", "F", "[", "]", "z",
    ]
    /// Bytes that go to the program as they are: everything but the ones the terminal turns
    /// into signals or flow control (Ctrl-C, Ctrl-Z, Ctrl-\, Ctrl-S, Ctrl-Q) and `q`, which the
    /// monkey leaves to the end.
    static let bytes: [UInt8] = (0...255).map(UInt8.init).filter { ![0x03, 0x1A, 0x1C, 0x13, 0x11, 0x71].contains($0) }

    /// The marker the shell prints once the inspector has returned.
    static let exitMarker = "chainlab-exit="

    @Test("a few hundred random keys, bytes and resizes: still alive, quits with 0, terminal sane", arguments: [
        ("basics", UInt64(1)), ("refresh-storm", UInt64(2)), ("openapi-middleware", UInt64(3)),
    ])
    func monkey(scenario: String, seed: UInt64) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chainlab-monkey-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Exports the monkey asks for land in the temporary folder.
        let tmux = try TmuxSession("sh -c 'cd \(folder.path) && \(try builtChainlab().path) \(scenario); s=$?; stty -a; echo \(Self.exitMarker)$s; sleep 60'")
        try await tmux.waitFor("Requests", timeout: .seconds(60))
        var random = SplitMix(seed: seed)
        for round in 0..<30 {
            var batch: [String] = []
            for _ in 0..<10 { batch.append(Self.keys.randomElement(using: &random)!) }
            try tmux.tmux(["send-keys", "-t", "s"] + batch)
            let raw = (0..<4).map { _ in String(format: "%02x", Self.bytes.randomElement(using: &random)!) }
            try tmux.tmux(["send-keys", "-t", "s", "-H"] + raw)
            if round % 5 == 4 {
                try tmux.resize(width: Int.random(in: 10...160, using: &random), height: Int.random(in: 3...50, using: &random))
            }
        }
        try tmux.resize(width: 120, height: 40)
        let settled = try await settle(tmux)
        #expect(!settled.contains(Self.exitMarker), "the inspector ended under the monkey:\n\(settled)")

        let screen = try await quit(tmux)
        #expect(screen.contains("\(Self.exitMarker)0"), "the inspector did not quit with status 0:\n\(screen)")
        #expect(screen.contains(" icanon") && screen.contains(" echo"))
        #expect(!screen.contains("-icanon"))
        #expect(try tmux.tmux(["display-message", "-p", "-t", "s", "#{alternate_on} #{cursor_flag}"]).stdout == "0 1\n")
    }

    /// Waits until the screen has stayed the same for a while (the inspector has worked
    /// through its input, or the program has ended) and returns it. The deadline is generous:
    /// only a screen that never stops changing reaches it, and then the last one is returned.
    func settle(_ tmux: TmuxSession, quiet: Duration = .milliseconds(400), deadline: Duration = .seconds(60)) async throws -> String {
        let end = ContinuousClock.now + deadline
        var last = try tmux.screen()
        var stableSince = ContinuousClock.now
        while ContinuousClock.now < end {
            try await Task.sleep(for: .milliseconds(50))
            let current = try tmux.screen()
            if current != last {
                last = current
                stableSince = ContinuousClock.now
            } else if ContinuousClock.now - stableSince >= quiet {
                break
            }
        }
        return last
    }

    /// Closes whatever is open, quits and confirms, one key at a time with the screen settled
    /// in between, again until the shell's exit marker shows. One key at a time matters: an
    /// Esc read together with the next byte is Alt+that key, so a round that lost its Esc
    /// that way leaves a prompt open and the next round closes it.
    func quit(_ tmux: TmuxSession) async throws -> String {
        var screen = try tmux.screen()
        for _ in 0..<20 where !screen.contains(Self.exitMarker) {
            for key in ["Escape", "Escape", "q"] {
                try tmux.send(key)
                screen = try await settle(tmux)
                if screen.contains(Self.exitMarker) { return screen }
            }
            if screen.contains("Quit?") {
                try tmux.send("y")
                screen = try await settle(tmux)
            }
        }
        return screen
    }
}
