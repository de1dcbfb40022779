import Testing
import TerminalUI

@Suite struct TextInputTests {
    @Test func editingKeysMoveTheCursorAndChangeTheText() {
        var field = TextInput(text: "Hello")
        #expect(field.cursor == 5)
        let homeHandled = field.handle(.home)
        #expect(homeHandled)
        field.handle(.char("X"))
        #expect(field.text == "XHello")
        #expect(field.cursor == 1)
        field.handle(.end)
        field.handle(.backspace)
        #expect(field.text == "XHell")
        field.handle(.left)
        field.handle(.left)
        field.handle(.delete)
        #expect(field.text == "XHel")
        #expect(field.cursor == 3)
        field.handle(.right)
        field.handle(.right)
        field.handle(.delete)
        #expect(field.cursor == 4)
        field.handle(.home)
        field.handle(.backspace)
        field.handle(.left)
        #expect(field.text == "XHel")
        #expect(field.cursor == 0)
        let unhandled = [field.handle(.enter), field.handle(.escape), field.handle(.tab)]
        #expect(unhandled == [false, false, false])
        #expect(field.text == "XHel")
    }

    @Test func theCursorIsAHighlightedCell() {
        var buffer = Buffer(width: 8, height: 1)
        TextInput(text: "Hello").render(in: buffer.area, into: &buffer)
        expectLines(buffer.lines, ["Hello   "])
        #expect(buffer[5, 0].style == .reverse)
        #expect(buffer[4, 0].style == .plain)
        var unfocused = Buffer(width: 8, height: 1)
        TextInput(text: "Hello", isFocused: false).render(in: unfocused.area, into: &unfocused)
        #expect(unfocused[5, 0].style == .plain)
    }

    @Test func theViewScrollsToKeepTheCursorVisible() {
        var field = TextInput(text: "abcdefghij")
        var buffer = Buffer(width: 5, height: 1)
        field.render(in: buffer.area, into: &buffer)
        // Text out of view on the left is marked, and so is text out of view on the right.
        expectLines(buffer.lines, ["…hij "])
        #expect(buffer[0, 0].style == .dim)
        #expect(buffer[4, 0].style == .reverse)
        field.handle(.home)
        buffer = Buffer(width: 5, height: 1)
        field.render(in: buffer.area, into: &buffer)
        expectLines(buffer.lines, ["abcd…"])
        #expect(buffer[0, 0].style == .reverse)
    }

    @Test func controlCharactersAreShownEscapedAndWideCharactersFullyHighlighted() {
        var field = TextInput(text: "a\rb日")
        field.handle(.left)
        var buffer = Buffer(width: 8, height: 1)
        field.render(in: buffer.area, into: &buffer)
        expectLines(buffer.lines, [#"a\rb日  "#])
        #expect(field.text == "a\rb日")
        #expect(buffer[4, 0].style == .reverse)
        #expect(buffer[5, 0].style == .reverse)
        #expect(buffer[3, 0].style == .plain)
    }

    /// `field` drawn on a one-row buffer `width` cells wide.
    func drawn(_ field: TextInput, width: Int) -> Buffer {
        var buffer = Buffer(width: width, height: 1)
        field.render(in: buffer.area, into: &buffer)
        return buffer
    }

    @Test func aLongFieldDrawsTheCharactersBeforeTheCursor() {
        var field = TextInput(text: String((0..<TextInput.maximumLength).map { Character(String($0 % 10)) }))
        let atEnd = drawn(field, width: 10)
        expectLines(atEnd.lines, ["…89012345 "])
        #expect(atEnd[9, 0].style == .reverse)
        field.handle(.left)
        let onLast = drawn(field, width: 10)
        expectLines(onLast.lines, ["…789012345"])
        #expect(onLast[9, 0].style == .reverse)
    }

    @Test func wideCharactersScrollByWholeCharacters() {
        let buffer = drawn(TextInput(text: "日本語"), width: 4)
        expectLines(buffer.lines, ["…語 "])
        #expect(buffer[3, 0].style == .reverse)
        #expect(buffer[2, 0].style == .plain)
    }

    @Test func insertingTextPutsItAtTheCursorAndStopsAtTheBound() {
        var field = TextInput(text: "ab")
        field.handle(.left)
        let fitted = field.insert(contentsOf: "xyz")
        #expect(fitted)
        #expect(field.text == "axyzb")
        #expect(field.cursor == 4)
        var full = TextInput(text: String(repeating: "a", count: TextInput.maximumLength - 2))
        let cut = full.insert(contentsOf: "bcd")
        #expect(!cut)
        #expect(full.text == String(repeating: "a", count: TextInput.maximumLength - 2) + "bc")
        #expect(full.cursor == TextInput.maximumLength)
        let typed = full.insert("e")
        #expect(!typed)
        #expect(full.text.count == TextInput.maximumLength)
    }
}
