import Foundation
import Inspector
import Lab
import TerminalUI
import Testing

extension Driver {
    /// Sends the mouse report `sequence` (a real xterm SGR report) against the frame on
    /// screen, as the app does; returns the effects.
    @discardableResult
    func mouse(_ sequence: String) async -> [InspectorEffect] {
        var buffer = Buffer(size: state.size)
        let map = Inspector.render(state, into: &buffer)
        guard let event = MouseDecoder.decode(sequence) else {
            Issue.record("not a mouse report: \(sequence.debugDescription)")
            return []
        }
        let effects = Inspector.update(&state, .mouse(event, map))
        for effect in effects { _ = InspectorApp.perform(effect, session: session, state: &state) }
        await refresh()
        return effects
    }

    /// The SGR report of a left press at the first place `text` is on the screen.
    /// A click on the first place `text` shows on the screen (with `last`, the last place).
    func click(on text: String, offset: Int = 0, release: Bool = false, last: Bool = false) -> String {
        let lines = screen()
        for (y, line) in last ? Array(lines.enumerated().reversed()) : Array(lines.enumerated()) {
            if let range = line.range(of: text) {
                let x = line.distance(from: line.startIndex, to: range.lowerBound) + offset
                return "\u{1B}[<0;\(x + 1);\(y + 1)\(release ? "m" : "M")"
            }
        }
        Issue.record("\(text) is not on the screen:\n\(lines.joined(separator: "\n"))")
        return ""
    }
}

@Suite("Mouse")
struct MouseTests {
    @Test("a click on a request's row selects it and focuses Requests; on a waterfall row, the Timeline")
    func clickRequest() async {
        let driver = Driver()
        await driver.press(.char("n"), .char("n"), .char("n"))
        await driver.press(.tab, .tab)
        #expect(driver.state.focus == .timeline)
        #expect(driver.state.selectedRequest == 3)
        #expect(await driver.mouse(driver.click(on: "⏸ #2 HeroQuery")) == [])
        #expect(driver.state.selectedRequest == 2)
        #expect(driver.state.focus == .requests)
        await driver.mouse(driver.click(on: "#3 ", offset: 0))
        #expect(driver.state.selectedRequest == 3)
        let rows = driver.screen()
        let waterfall = rows.lastIndex { $0.contains("│#1") }!
        await driver.mouse("\u{1B}[<0;3;\(waterfall + 1)M")
        #expect(driver.state.selectedRequest == 1)
        #expect(driver.state.focus == .timeline)
    }

    @Test("a click on a hop's post-flight column selects that hop and side in the Chain pane")
    func clickHop() async {
        let driver = Driver()
        await driver.press(.char("n"))
        let line = driver.screen().first { $0.contains("ResponseCodeInterceptor") }!
        let post = line.range(of: "·", options: .backwards)!
        let x = line.distance(from: line.startIndex, to: post.lowerBound)
        let y = driver.screen().firstIndex(of: line)!
        await driver.mouse("\u{1B}[<0;\(x + 1);\(y + 1)M")
        #expect(driver.state.focus == .chain)
        #expect(driver.state.selectedHop == 4)
        #expect(driver.state.selectedSide == .post)
        await driver.mouse(driver.click(on: "MaxRetryInterceptor"))
        #expect(driver.state.selectedHop == 0)
        #expect(driver.state.selectedSide == .post, "a click on the name keeps the side")
    }

    @Test("a double click opens: Requests to Chain; a release and a drag do nothing")
    func doubleClickOpens() async {
        let driver = Driver()
        await driver.press(.char("n"))
        var input = InputAssembler()
        let press = driver.click(on: "⏸ #1 HeroQuery")
        let keys = (press + press.replacingOccurrences(of: "M", with: "m") + press).unicodeScalars.flatMap { input.feed(.character($0.value), at: .milliseconds(100)) }
        let events = keys.compactMap { if case .mouse(let event) = $0 { event } else { nil } }
        #expect(events.map(\.clickCount) == [1, 1, 2])
        var buffer = Buffer(size: driver.state.size)
        let map = Inspector.render(driver.state, into: &buffer)
        _ = Inspector.update(&driver.state, .mouse(events[0], map))
        #expect(driver.state.focus == .requests)
        _ = Inspector.update(&driver.state, .mouse(events[1], map))
        #expect(driver.state.focus == .requests)
        _ = Inspector.update(&driver.state, .mouse(events[2], map))
        #expect(driver.state.focus == .chain)
        _ = Inspector.update(&driver.state, .mouse(MouseEvent(.left, .drag, at: events[0].position), map))
        #expect(driver.state.focus == .chain)
    }

    @Test("the wheel moves through the pane under the pointer and leaves the focus where it was")
    func wheel() async {
        // 24 rows leave Detail fewer rows than its content, so it has something to scroll.
        let driver = Driver(size: Size(width: 120, height: 24))
        await driver.press(.char("n"), .char("n"), .char("n"))
        #expect(driver.state.focus == .requests)
        let chainRow = driver.screen().firstIndex { $0.contains("MaxRetryInterceptor") }!
        let column = driver.screen()[chainRow].distance(from: driver.screen()[chainRow].startIndex, to: driver.screen()[chainRow].range(of: "MaxRetry")!.lowerBound)
        await driver.mouse("\u{1B}[<65;\(column + 1);\(chainRow + 1)M")
        #expect(driver.state.selectedHop == 1)
        #expect(driver.state.focus == .requests)
        let request = driver.screen().firstIndex { $0.contains("⏸ #1 HeroQuery") }!
        await driver.mouse("\u{1B}[<65;3;\(request + 1)M")
        await driver.mouse("\u{1B}[<65;3;\(request + 1)M")
        #expect(driver.state.selectedRequest == 3)
        await driver.mouse("\u{1B}[<64;3;\(request + 1)M")
        #expect(driver.state.selectedRequest == 2)
        let detail = driver.screen().firstIndex { $0.hasPrefix("┌ Hop") }! + 2
        await driver.mouse("\u{1B}[<65;10;\(detail + 1)M")
        #expect(driver.state.detailScroll == 3, "three rows a notch")
        for _ in 0..<10 { await driver.mouse("\u{1B}[<65;10;\(detail + 1)M") }
        let end = driver.state.detailScroll
        await driver.mouse("\u{1B}[<65;10;\(detail + 1)M")
        #expect(driver.state.detailScroll == end, "stopping where Detail's last line shows")
        #expect(end > 3 && end < 33)
        #expect(driver.state.focus == .requests)
    }

    @Test("a click on a key hint runs its key; one that does not apply is not shown to be clicked")
    func clickHint() async {
        let driver = Driver(size: Size(width: 80, height: 24))
        #expect(driver.screen()[23].hasPrefix("n new  b breakpoint  Tab pane"))
        #expect(await driver.mouse(driver.click(on: "n new", offset: 2)) == [.command(.launch(operation: 0))])
        #expect(driver.state.selectedRequest == 1)
        #expect(await driver.mouse(driver.click(on: "s step")) == [.command(.step(request: 1))])
        #expect(driver.state.selectedStop?.place == .hop(1, .pre))
        await driver.mouse(driver.click(on: "? help"))
        #expect(driver.state.modal == .help(scroll: 0))
        await driver.mouse("\u{1B}[<65;10;10M")
        #expect(driver.state.modal == .help(scroll: 3), "the wheel scrolls the help")
        await driver.mouse("\u{1B}[<0;10;10M")
        #expect(driver.state.modal == .help(scroll: 3), "a click under an overlay reaches nothing")
    }

    @Test("a mouse key without a frame's map does nothing")
    func keyWithoutMap() {
        let driver = Driver()
        #expect(Inspector.update(&driver.state, .key(.mouse(MouseEvent(.left, at: Position(x: 1, y: 1))))) == [])
        #expect(driver.state.modal == nil)
        #expect(driver.state.notice == nil)
    }
}
