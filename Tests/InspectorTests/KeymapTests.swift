import Foundation
import Inspector
import TerminalUI
import Testing

@Suite("Keymap")
struct KeymapTests {
    @Test("every action has exactly one binding and no key is bound twice")
    func oneTable() {
        #expect(Set(Keymap.bindings.map(\.action)) == Set(Action.allCases))
        #expect(Keymap.bindings.count == Action.allCases.count)
        let keys = Keymap.bindings.flatMap(\.keys)
        #expect(Set(keys).count == keys.count)
    }

    @Test("the help overlay names every action, including force 401 and force retry")
    func helpNamesActions() {
        let text = Inspector.helpLines.map { $0.spans.map(\.text).joined() }.joined(separator: "\n")
        for binding in Keymap.bindings { #expect(text.contains(binding.name)) }
        #expect(text.contains("4          force 401 — force a 401 here"))
        #expect(text.contains("r          force retry — force a retry from here"))
    }

    @Test("the key table of docs/keys.md is the one generated from the keymap")
    func readmeTable() throws {
        let keys = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/keys.md")
        let text = try String(contentsOf: keys, encoding: .utf8)
        #expect(text.contains(KeyBindings.standard.markdownTable), "docs/keys.md's key table differs from the keymap; paste the output of 'swift run chainlab keys --markdown'")
    }
}

@Suite("README")
struct ReadmeExampleTests {
    /// The README says what ChainLab is, installs it, tours it and points to the docs;
    /// everything else lives in `docs/`.
    @Test("the README stays at most 400 lines, and every doc it links to exists")
    func readmeIsShort() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.split(separator: "\n", omittingEmptySubsequences: false).count <= 400)
        let links = readme.matches(of: /\]\((docs\/[a-z-]+\.md)(#[a-z0-9-]+)?\)/).map { String($0.output.1) }
        #expect(Set(links).count >= 10)
        for link in Set(links) {
            #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent(link).path), "\(link)")
        }
    }

    @Test("the library example in docs/library.md is the one Examples/InspectMyChain builds")
    func libraryExample() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("docs/library.md"), encoding: .utf8)
        let example = try String(contentsOf: root.appendingPathComponent("Examples/InspectMyChain/main.swift"), encoding: .utf8)
        let marker = "<!-- example: Examples/InspectMyChain/main.swift -->\n```swift\n"
        let start = try #require(readme.range(of: marker)).upperBound
        let end = try #require(readme.range(of: "```", range: start..<readme.endIndex)).lowerBound
        #expect(String(readme[start..<end]) == example)
    }
}

/// The codebase guide stays short and names only what exists.
///
/// A backticked span in `docs/codebase-guide.md` (outside fenced blocks) names a path when it
/// has no space, `*` or `<` (those are commands and patterns such as `Render*.swift`), starts
/// with a letter, `.` or `_`, and either contains `/` or ends in `.swift`, `.md`, `.json`,
/// `.sh` or `.py`. Such a path must exist relative to the repository root, to `Sources/` or
/// to `Tests/`, tried in that order: `Lab/Scenarios/` is `Sources/Lab/Scenarios/`,
/// `LabTests/CatalogTests.swift` is `Tests/LabTests/CatalogTests.swift`.
@Suite("Codebase guide")
struct CodebaseGuideTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func guideLines() throws -> [Substring] {
        let text = try String(contentsOf: root.appendingPathComponent("docs/codebase-guide.md"), encoding: .utf8)
        return text.split(separator: "\n", omittingEmptySubsequences: false)
    }

    /// The paths the guide names, by the rule in the suite's doc comment.
    static func namedPaths(in lines: [Substring]) -> [String] {
        let extensions = [".swift", ".md", ".json", ".sh", ".py"]
        var inFence = false
        var paths: [String] = []
        for line in lines {
            if line.hasPrefix("```") { inFence.toggle(); continue }
            if inFence { continue }
            let pieces = line.split(separator: "`", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() where index % 2 == 1 && index < pieces.count - 1 {
                guard let first = piece.first, first.isLetter || first == "." || first == "_",
                      !piece.contains(where: { $0 == " " || $0 == "*" || $0 == "<" }),
                      piece.contains("/") || extensions.contains(where: { piece.hasSuffix($0) })
                else { continue }
                paths.append(String(piece))
            }
        }
        return paths
    }

    @Test("the guide is at most 250 lines")
    func length() throws {
        let lines = try Self.guideLines()
        let count = lines.last == "" ? lines.count - 1 : lines.count
        #expect(count <= 250, "docs/codebase-guide.md has \(count) lines")
    }

    @Test("every file or folder the guide names exists, under the root, Sources/ or Tests/")
    func namedPathsExist() throws {
        let paths = Self.namedPaths(in: try Self.guideLines())
        #expect(paths.count > 50, "the guide names \(paths.count) paths; the rule no longer finds them")
        let bases = [Self.root, Self.root.appendingPathComponent("Sources"), Self.root.appendingPathComponent("Tests")]
        let missing = paths.filter { path in
            !bases.contains { FileManager.default.fileExists(atPath: $0.appendingPathComponent(path).path) }
        }
        #expect(missing.isEmpty, "docs/codebase-guide.md names paths that do not exist: \(missing)")
    }

    @Test("the path rule takes paths and file names, and leaves commands, patterns and keys")
    func pathRule() {
        let lines: [Substring] = [
            "See `Lab/Scenarios/`, `Package.swift`, `scripts/instructions.sh` and `.ci/run`.",
            "Not `Render*.swift`, `Timeline/<Name>Export.swift`, `swift run chainlab keys`, `/`, `w` or `--format`.",
            "```",
            "`Inside/Fence.swift`",
            "```",
        ]
        #expect(Self.namedPaths(in: lines) == ["Lab/Scenarios/", "Package.swift", "scripts/instructions.sh", ".ci/run"])
    }
}
