import Testing
import TerminalUI

@Suite struct TestBackendTests {
    @Test func theSecondDrawWritesOnlyTheChangedCells() {
        let terminal = TestBackend(width: 8, height: 2)
        terminal.draw { buffer in buffer.set(string: "ready", at: Position(x: 0, y: 0)) }
        terminal.draw { buffer in buffer.set(string: "reads", at: Position(x: 0, y: 0)) }
        #expect(terminal.writes.map(\.count) == [16, 1])
        #expect(terminal.writes[1] == [CellChange(x: 4, y: 0, cell: terminal.lastFrame![4, 0])])
        #expect(terminal.screen == terminal.lastFrame)
        expectLines(terminal.screen.lines, ["reads   ", "        "])
    }

    @Test func anUnchangedFrameWritesNothing() {
        let terminal = TestBackend(width: 4, height: 1)
        let frame = TextSnapshot.render(width: 4, height: 1) { area, buffer in buffer.set(string: "hi", at: area.origin) }
        terminal.draw { buffer in buffer.set(string: frame[0], at: buffer.area.origin) }
        terminal.draw { buffer in buffer.set(string: frame[0], at: buffer.area.origin) }
        #expect(terminal.writes.map(\.count) == [4, 0])
    }

    @Test func theScreenFollowsFramesWithWideCharacters() {
        let terminal = TestBackend(width: 6, height: 1)
        for row in ["abcdef", "日本語", "a日b本c", "日cd語", "xy日本", "      ", "語語語"] {
            terminal.draw { buffer in buffer.set(string: row, at: buffer.area.origin) }
            #expect(terminal.screen == terminal.lastFrame, "after drawing \(row)")
        }
        expectLines(terminal.screen.lines, ["語語語"])
    }

    @Test func aResizeIsReportedAndRedrawsEverything() {
        let terminal = TestBackend(width: 4, height: 1, keys: [.char("q")])
        terminal.draw { buffer in buffer.set(string: "ab", at: buffer.area.origin) }
        terminal.resize(width: 3, height: 2)
        #expect(terminal.readKey(timeout: .zero) == .resize)
        #expect(terminal.size == Size(width: 3, height: 2))
        terminal.draw { buffer in buffer.set(string: "ab", at: buffer.area.origin) }
        #expect(terminal.writes.map(\.count) == [4, 6])
        #expect(terminal.readKey(timeout: .zero) == .char("q"))
        #expect(terminal.readKey(timeout: .zero) == nil)
    }

    @Test func restoreIsIdempotentAndEndsDrawingAndReading() {
        let terminal = TestBackend(width: 2, height: 1, keys: [.enter])
        terminal.restore()
        terminal.restore()
        terminal.draw { buffer in buffer.set(string: "x", at: buffer.area.origin) }
        #expect(terminal.restoreCount == 2)
        #expect(terminal.writes == [])
        #expect(terminal.readKey(timeout: nil) == nil)
    }
}
