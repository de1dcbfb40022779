import Testing
import TerminalUI

@Suite struct StatusLineTests {
    let status = StatusLine([.init("s", "step"), .init("c", "continue"), .init("?", "help"), .init("q", "quit")], trailing: "basics")

    @Test(arguments: [
        (50, "s step  c continue  ? help  q quit          basics"),
        (40, "s step  c continue  ? help  q quit      "),
        (34, "s step  c continue  ? help  q quit"),
        (30, "s step  c continue  ? help    "),
        (20, "s step  c continue  "),
        (4, "s st"),
        (1, "s"),
    ])
    func hintsAreDroppedFromTheRightToFit(width: Int, line: String) {
        expectLines(TextSnapshot.render(status, width: width, height: 1), [line])
    }

    @Test func keysAreBold() {
        var buffer = Buffer(width: 10, height: 1)
        StatusLine([.init("q", "quit")]).render(in: buffer.area, into: &buffer)
        #expect(buffer[0, 0].style == .bold)
        #expect(buffer[2, 0].style == .plain)
    }

    @Test func aHintWithoutAnActionIsItsKeyAlone() {
        let hints: [StatusLine.Hint] = [.init("s", "step"), .init("…", ""), .init("?", "help")]
        #expect(hints.map(\.width) == [6, 1, 6])
        #expect(StatusLine.width(of: hints) == 17)
        #expect(StatusLine.width(of: []) == 0)
        expectLines(TextSnapshot.render(StatusLine(hints), width: 18, height: 1), ["s step  …  ? help "])
    }

    @Test func trailingTextAloneIsRightAligned() {
        expectLines(TextSnapshot.render(StatusLine([], trailing: "basics"), width: 8, height: 1), ["  basics"])
    }
}
