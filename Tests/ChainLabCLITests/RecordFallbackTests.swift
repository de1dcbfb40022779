#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Testing

/// The inspector's `--record` at quit: the path was checked before the session began, but
/// its folder can go away meanwhile. The session's decisions are then saved in the
/// temporary folder and stderr says where, so what the person did is not lost.
@Suite("Inspector --record fallback", .serialized)
final class RecordFallbackTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("chainlab-record-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    /// In an inspector just started: launches a request and steps it once.
    static func launchAndStep(in tmux: TmuxSession) async throws {
        try await tmux.waitFor("Requests", timeout: .seconds(60))
        try tmux.send("n")
        try await tmux.waitFor("⏸ held", timeout: .seconds(60))
        let held = try tmux.screen()
        try tmux.send("s")
        try await tmux.waitFor("the step drawn", timeout: .seconds(60)) { $0 != held }
    }

    /// Opens the inspector with `--record OUT/session.json` (OUT exists then) and
    /// `TMPDIR=temporary`, launches and steps one request, removes OUT, and quits. Returns
    /// the exit status and what the inspector wrote to stderr.
    func sessionWhoseRecordFolderGoes(temporary: String) async throws -> (status: String, stderr: String, recordPath: String) {
        let out = folder.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let record = out.appendingPathComponent("session.json").path
        let errors = folder.appendingPathComponent("stderr").path
        let command = "TMPDIR=\(temporary) \(try builtChainlab().path) basics --record \(record) 2>\(errors); echo chainlab-exit=$?; sleep 60"
        let tmux = try TmuxSession("sh -c '\(command)'")
        try await Self.launchAndStep(in: tmux)
        try FileManager.default.removeItem(at: out)
        try tmux.send("q")
        try await tmux.waitFor("Quit?", timeout: .seconds(60))
        try tmux.send("y")
        let screen = try await tmux.waitFor("the exit status", timeout: .seconds(60)) { $0.contains("chainlab-exit=") }
        let status = screen.firstMatch(of: /chainlab-exit=(\d+)/).map { String($0.1) } ?? "none"
        let stderr = try String(contentsOfFile: errors, encoding: .utf8)
        return (status, stderr, record)
    }

    @Test("the record folder removed during the session: saved in the temporary folder, said on stderr, exit 1, and it replays")
    func savedInTemporaryFolder() async throws {
        let temporary = folder.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        let (status, stderr, record) = try await sessionWhoseRecordFolderGoes(temporary: temporary.path)
        #expect(status == "1")
        let saved = try #require(try FileManager.default.contentsOfDirectory(atPath: temporary.path).first, "nothing was saved in \(temporary.path)")
        #expect(saved.wholeMatch(of: /chainlab-recording-\d+-\d+\.json/) != nil, "unexpected name \(saved)")
        let fallback = temporary.appendingPathComponent(saved).path
        #expect(stderr == "chainlab: cannot write \(record): the folder \((record as NSString).deletingLastPathComponent) does not exist; the recording was saved to \(fallback) instead\n")

        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: fallback))) as? [String: Any])
        #expect(json["format"] as? String == "chainlab-recording")
        #expect(json["scenario"] as? String == "basics")
        let commands = try #require(json["commands"] as? [[String: Any]])
        #expect(commands.first?["command"] as? String == "launch")
        #expect(commands.contains { $0["command"] as? String == "step" && $0["request"] as? Int == 1 })
        // What was saved replays the session as it was left: #1 stepped once, held at Auth's
        // pre-flight stop, never finished.
        let replay = try runProcess(try builtChainlab().path, ["trace", "basics", "--replay", fallback])
        #expect(replay.status == 1)
        #expect(replay.stderr == "chainlab: requests #1 did not finish\n")
        #expect(replay.stdout.contains("#1.1   • AuthInterceptor paused (step · pre-flight)"))
    }

    @Test("when the temporary folder cannot take it either, stderr says the recording is lost, exit 1")
    func fallbackFailsToo() async throws {
        let missing = folder.appendingPathComponent("no-such-tmp").path
        let (status, stderr, record) = try await sessionWhoseRecordFolderGoes(temporary: missing)
        #expect(status == "1")
        let pattern = "chainlab: cannot write \(record): the folder \((record as NSString).deletingLastPathComponent) does not exist, and the fallback failed too: cannot write \(missing)/chainlab-recording-"
        #expect(stderr.hasPrefix(pattern), "\(stderr)")
        #expect(stderr.hasSuffix(".json: the folder \(missing) does not exist; the recording is lost\n"), "\(stderr)")
    }

    @Test("the recording is kept current as the session goes, so Ctrl-C, SIGTERM or SIGHUP does not lose it",
          arguments: [SIGINT, SIGTERM, SIGHUP])
    func keptCurrentThroughASignal(signal: Int32) async throws {
        let record = folder.appendingPathComponent("session-\(signal).json").path
        let pidFile = folder.appendingPathComponent("pid-\(signal)").path
        let command = "sh -c 'echo \\$\\$ > \(pidFile); exec \(try builtChainlab().path) basics --record \(record)'; echo chainlab-exit=\\$?; sleep 60"
        let tmux = try TmuxSession("sh -c \"\(command)\"")
        try await Self.launchAndStep(in: tmux)
        // The file follows the session within a quarter of a second; 60 s only fails a hung run.
        let deadline = ContinuousClock.now + .seconds(60)
        func stepRecorded() -> Bool {
            let text = (try? String(contentsOfFile: record, encoding: .utf8)) ?? ""
            return text.contains(#""command":"step""#) || text.contains(#""command": "step""#)
        }
        while !stepRecorded(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        let pid = try #require(Int32(String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        kill(pid, signal)
        try await tmux.waitFor("chainlab-exit=\(128 + signal)", timeout: .seconds(60))

        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: record))) as? [String: Any])
        #expect(json["format"] as? String == "chainlab-recording")
        let commands = try #require(json["commands"] as? [[String: Any]])
        #expect(commands.map { $0["command"] as? String } == ["launch", "pass", "step"])
        let replay = try runProcess(try builtChainlab().path, ["trace", "basics", "--replay", record])
        #expect(replay.status == 1)
        #expect(replay.stderr == "chainlab: requests #1 did not finish\n")
        #expect(replay.stdout.contains("#1.1   • AuthInterceptor paused (step · pre-flight)"))
    }
}
