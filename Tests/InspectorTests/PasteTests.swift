import ChainKit
import Inspector
import Lab
import TerminalUI
import Testing

/// Long text typed or pasted into the inspector's text fields: taken in one insertion (a
/// paste) or one in-place edit per character, never a copy of the field per character.
/// Sizes are chosen so that a copy per character would run for minutes.
@Suite("Pastes into text fields")
struct PasteTests {
    static let bound = TextInput.maximumLength

    @Test("a 1 MiB paste into / keeps the field's first 65,536 characters and says the rest was dropped")
    func filterPaste() async {
        let driver = Driver()
        await driver.press(.char("/"))
        let text = String(repeating: "~op Hero | ", count: (1 << 20) / 11 + 1)
        #expect(Inspector.update(&driver.state, .paste(text)) == [])
        guard case .filter(let prompt) = driver.state.modal else { Issue.record("the / line closed"); return }
        #expect(prompt.input.text == String(text.prefix(Self.bound)))
        #expect(prompt.input.cursor == Self.bound)
        #expect(driver.state.notice == .init(text: "a text field holds at most 65536 characters; the rest was dropped", isError: true))
    }

    @Test("60,000 characters typed one by one into / are all there, in order")
    func filterTyping() async {
        let driver = Driver()
        await driver.press(.char("/"))
        let text = String((0..<60_000).map { Character(String($0 % 10)) })
        for character in text { _ = Inspector.update(&driver.state, .key(.char(character))) }
        guard case .filter(let prompt) = driver.state.modal else { Issue.record("the / line closed"); return }
        #expect(prompt.input.text == text)
        #expect(driver.state.notice == nil)
    }

    @Test("a paste and typed characters in the header editor's value field land at the cursor")
    func editorPaste() async {
        let driver = Driver()
        await driver.press(.char("n"))
        await driver.step(until: .hop(2, .pre))
        await driver.press(.char("e"), .ctrl("n"), .char("X"), .tab)
        let value = String(repeating: "v", count: 40_000)
        #expect(Inspector.update(&driver.state, .paste(value)) == [])
        for _ in 0..<20_000 { _ = Inspector.update(&driver.state, .key(.char("w"))) }
        guard case .editor(let editor) = driver.state.modal else { Issue.record("the editor closed"); return }
        #expect(editor.rows.map(\.name.text) == ["Authorization", "X"])
        #expect(editor.rows[1].value.text == value + String(repeating: "w", count: 20_000))
        #expect(editor.rows[1].value.cursor == 60_000)
    }

    @Test("with no text field open, a paste is its characters as keys")
    func pasteAsKeys() async {
        let driver = Driver()
        #expect(Inspector.update(&driver.state, .paste("?")) == [])
        #expect(driver.state.modal == .help(scroll: 0))
        #expect(Inspector.update(&driver.state, .paste("jq")) == [])
        #expect(driver.state.modal == nil)
    }
}
