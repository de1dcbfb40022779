import Foundation
import Testing

/// A bounded monkey: random keys, raw bytes and resizes thrown at the inspector in a real
/// terminal (tmux), after which it must still be running, quit with status 0 and leave the
/// terminal's modes sane. The sequence is seeded, so a failure replays.
@Suite("Inspector under a monkey", .serialized)
struct MonkeyTests {
    /// SplitMix64, seeded per scenario.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// tmux key names: the keymap's keys, navigation, editing keys.
    static let keys = [
        "n", "N", "s", "c", "C", "B", "b", "e", "4", "r", "x", "+", "T", "o", "w", "y", "/", "v", "i", "Tab", "BTab",
        "k", "j", "Up", "Down", "Left", "Right", "PPage", "NPage", "Home", "End", "g", "G", "Enter", "Escape", "?",
        "BSpace", "DC", "C-n", "C-d", "C-a", "C-e", "F1", "F5", "a", "Z", "1", "0", " ",
    ]
    /// Bytes that go to the program as they are: everything but the ones the terminal turns
    /// into signals or flow control (Ctrl-C, Ctrl-Z, Ctrl-\, Ctrl-S, Ctrl-Q) and `q`, which the
    /// monkey leaves to the end.
    static let bytes: [UInt8] = (0...255).map(UInt8.init).filter { ![0x03, 0x1A, 0x1C, 0x13, 0x11, 0x71].contains($0) }

    @Test("a few hundred random keys, bytes and resizes: still alive, quits with 0, terminal sane", arguments: [
        ("basics", UInt64(1)), ("refresh-storm", UInt64(2)), ("openapi-middleware", UInt64(3)),
    ])
    func monkey(scenario: String, seed: UInt64) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chainlab-monkey-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Exports the monkey asks for land in the temporary folder.
        let tmux = try TmuxSession("sh -c 'cd \(folder.path) && \(try builtChainlab().path) \(scenario); s=$?; stty -a; echo chainlab-exit=$s; sleep 60'")
        try await tmux.waitFor("Requests")
        var random = Generator(state: seed)
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
        #expect(!(try tmux.screen()).contains("chainlab-exit="), "the inspector ended under the monkey")
        // Close whatever is open, then quit, confirming when requests are still open.
        // One key at a time, each after the screen has settled: an Esc read together with
        // the next key would be Alt+key.
        for key in ["Escape", "Escape", "Escape", "Escape", "q"] {
            try tmux.send(key)
            try await settle(tmux)
        }
        let asked = try await tmux.waitFor("the quit question or the exit", timeout: .seconds(30)) { $0.contains("Quit?") || $0.contains("chainlab-exit=") }
        if asked.contains("Quit?") { try tmux.send("y") }
        let screen = try await tmux.waitFor("chainlab-exit=0", timeout: .seconds(30))
        #expect(screen.contains(" icanon") && screen.contains(" echo"))
        #expect(!screen.contains("-icanon"))
        #expect(try tmux.tmux(["display-message", "-p", "-t", "s", "#{alternate_on} #{cursor_flag}"]).stdout == "0 1\n")
    }

    /// Waits until the screen has not changed for 300 ms (at most 5 s).
    func settle(_ tmux: TmuxSession) async throws {
        let deadline = ContinuousClock.now + .seconds(5)
        var last = try tmux.screen()
        var stableSince = ContinuousClock.now
        while ContinuousClock.now < deadline, ContinuousClock.now - stableSince < .milliseconds(300) {
            try await Task.sleep(for: .milliseconds(50))
            let current = try tmux.screen()
            if current != last {
                last = current
                stableSince = ContinuousClock.now
            }
        }
    }
}
