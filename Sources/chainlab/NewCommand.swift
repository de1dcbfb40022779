import Foundation
import Vocabulary

/// `chainlab new DIR`: a Swift package whose `swift run` opens the inspector on its own
/// interceptors — the library example (Examples/InspectMyChain) over a ChainLab checkout.
struct NewCommand {
    static let usage = """
        USAGE: chainlab new DIR [--chainlab PATH]

        Writes a Swift package in DIR (which must not exist, or be empty): Package.swift
        depending on ChainLab at PATH, and Sources/main.swift with an auth interceptor in
        Apollo iOS 2.4's documented shape, a token store and ChainLab.inspect on the
        token-expiry scenario. Then: cd DIR && swift run

          --chainlab PATH     the ChainLab checkout to depend on (default: the one this
                              chainlab was built from)
        """

    var directory: String?
    var checkout: String?

    init(arguments: [String]) throws {
        let refusal = { (argument: String) in "unexpected argument '\(argument)' for new; valid: DIR, --chainlab PATH" }
        var parser = CommandLineParser<Self>(
            command: "new", options: [.value("--chainlab") { $0.checkout = $1 }], usage: Self.usage, unknown: refusal
        ) { command, argument in
            guard command.directory == nil else { throw CommandLineError(refusal(VisibleEscapes.escape(argument))) }
            command.directory = argument
        }
        parser.repeated = refusal
        try parser.parse(arguments, into: &self)
    }

    /// Writes the package; returns what to tell the person.
    func run(executable: URL) throws -> String {
        guard let directory else { throw CommandLineError("new needs a directory: chainlab new DIR") }
        let root = try checkoutRoot(executable: executable)
        let target = URL(fileURLWithPath: directory).standardizedFileURL
        let files = FileManager.default
        if files.fileExists(atPath: target.path) {
            let contents = (try? files.contentsOfDirectory(atPath: target.path)) ?? ["?"]
            guard contents.isEmpty else {
                throw CommandLineError("\(VisibleEscapes.escape(directory)) exists and is not empty; give a new directory")
            }
        }
        let name = Self.packageName(target.lastPathComponent)
        let example = try String(contentsOf: root.appendingPathComponent(Self.examplePath), encoding: .utf8)
        do {
            try files.createDirectory(at: target.appendingPathComponent("Sources"), withIntermediateDirectories: true)
            try Data(Self.manifest(name: name, checkout: root).utf8).write(to: target.appendingPathComponent("Package.swift"))
            try Data(Self.mainSwift(example: example).utf8).write(to: target.appendingPathComponent("Sources/main.swift"))
        } catch {
            throw CommandLineError("cannot write \(VisibleEscapes.escape(directory)): \(error.localizedDescription)")
        }
        return "wrote \(directory)/Package.swift and \(directory)/Sources/main.swift\nnext: cd \(directory) && swift run\n"
    }

    static let examplePath = "Examples/InspectMyChain/main.swift"

    /// The ChainLab checkout: `--chainlab`, or the one whose `.build` holds this executable.
    func checkoutRoot(executable: URL) throws -> URL {
        let isCheckout = { (url: URL) in
            FileManager.default.fileExists(atPath: url.appendingPathComponent(Self.examplePath).path)
                && FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path)
        }
        if let checkout {
            let url = URL(fileURLWithPath: checkout).standardizedFileURL
            guard isCheckout(url) else {
                throw CommandLineError("--chainlab \(VisibleEscapes.escape(checkout)) is not a ChainLab checkout (no Package.swift and \(Self.examplePath))")
            }
            return url
        }
        var folder = executable.resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<5 {
            if isCheckout(folder) { return folder }
            folder = folder.deletingLastPathComponent()
        }
        throw CommandLineError("this chainlab was not built in a ChainLab checkout; say which one with --chainlab PATH")
    }

    /// A target name from a directory name: letters, digits and `_`, not starting with a digit.
    static func packageName(_ directory: String) -> String {
        var name = String(directory.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) && $0.isASCII ? Character($0) : "_" })
        if name.first?.isNumber ?? true { name = "App" + name }
        return name
    }

    static func manifest(name: String, checkout: URL) -> String {
        // A path dependency's identity is its directory's name.
        let identity = checkout.lastPathComponent
        return """
            // swift-tools-version:6.0
            import PackageDescription

            let package = Package(
                name: "\(name)",
                platforms: [.macOS(.v15)],
                dependencies: [.package(path: "\(checkout.path)")],
                targets: [
                    .executableTarget(
                        name: "\(name)",
                        dependencies: [
                            .product(name: "ChainKit", package: "\(identity)"),
                            .product(name: "ChainLabInspector", package: "\(identity)"),
                        ],
                        path: "Sources"),
                ])

            """
    }

    static func mainSwift(example: String) -> String {
        example.replacingOccurrences(of: "// Build and run: swift run inspect-my-chain", with: "// Build and run: swift run")
    }
}
