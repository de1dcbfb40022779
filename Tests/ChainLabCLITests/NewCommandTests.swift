import Foundation
import Testing

/// `chainlab new DIR`: a package over this checkout whose main.swift is the library example.
@Suite("chainlab new")
struct NewCommandTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func temporary() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("chainlab-new-\(UUID().uuidString)").appendingPathComponent("my-app")
    }

    @Test("writes Package.swift over this checkout and the library example as Sources/main.swift; swift package reads the manifest")
    func writesThePackage() throws {
        let directory = temporary()
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        let run = try runProcess(try builtChainlab().path, ["new", directory.path, "--chainlab", Self.root.path])
        #expect(run.status == 0)
        #expect(run.stdout == "wrote \(directory.path)/Package.swift and \(directory.path)/Sources/main.swift\nnext: cd \(directory.path) && swift run\n")
        let manifest = try String(contentsOf: directory.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(manifest.contains(#"dependencies: [.package(path: "\#(Self.root.path)")]"#))
        #expect(manifest.contains(#".product(name: "ChainLabInspector", package: "\#(Self.root.lastPathComponent)")"#))
        #expect(manifest.contains(#"name: "my_app""#))
        let main = try String(contentsOf: directory.appendingPathComponent("Sources/main.swift"), encoding: .utf8)
        let example = try String(contentsOf: Self.root.appendingPathComponent("Examples/InspectMyChain/main.swift"), encoding: .utf8)
        #expect(main == example.replacingOccurrences(of: "swift run inspect-my-chain", with: "swift run"))
        let dump = try runProcess("/usr/bin/env", ["swift", "package", "--package-path", directory.path, "dump-package"])
        #expect(dump.status == 0, "\(dump.stderr)")
        #expect(dump.stdout.contains(#""name" : "my_app""#))
    }

    @Test("a directory with files in it, a missing DIR and a folder that is no checkout are refused with the reason")
    func refusals() throws {
        let directory = temporary()
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: directory.appendingPathComponent("notes.txt"))
        let chainlab = try builtChainlab().path
        let full = try runProcess(chainlab, ["new", directory.path, "--chainlab", Self.root.path])
        #expect(full.status == 2)
        #expect(full.stderr == "chainlab: \(directory.path) exists and is not empty; give a new directory\n")
        let missing = try runProcess(chainlab, ["new"])
        #expect(missing.status == 2)
        #expect(missing.stderr == "chainlab: new needs a directory: chainlab new DIR\n")
        let notCheckout = try runProcess(chainlab, ["new", directory.appendingPathComponent("sub").path, "--chainlab", "/tmp"])
        #expect(notCheckout.status == 2)
        #expect(notCheckout.stderr == "chainlab: --chainlab /tmp is not a ChainLab checkout (no Package.swift and Examples/InspectMyChain/main.swift)\n")
    }
}
