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

    @Test("the README's key table is the one generated from the keymap")
    func readmeTable() throws {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        #expect(text.contains(KeyBindings.standard.markdownTable), "README.md's key table differs from the keymap; paste the output of 'swift run chainlab keys --markdown'")
    }
}

@Suite("README")
struct ReadmeExampleTests {
    @Test("the library example in the README is the one Examples/InspectMyChain builds")
    func libraryExample() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let example = try String(contentsOf: root.appendingPathComponent("Examples/InspectMyChain/main.swift"), encoding: .utf8)
        let marker = "<!-- example: Examples/InspectMyChain/main.swift -->\n```swift\n"
        let start = try #require(readme.range(of: marker)).upperBound
        let end = try #require(readme.range(of: "```", range: start..<readme.endIndex)).lowerBound
        #expect(String(readme[start..<end]) == example)
    }
}
