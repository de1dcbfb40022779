import TerminalUI
import Timeline
import TimelineFilter
import InspectorModel

extension Inspector {
    /// The `/` line at the bottom of the screen, with the refusal and a caret under where
    /// the expression went wrong on the line above.
    static func renderFilterPrompt(_ prompt: FilterPrompt, in area: Rect, into buffer: inout Buffer) {
        let box = Rect(x: area.x, y: area.maxY - 1, width: area.width, height: 1)
        buffer.fill(box)
        _ = buffer.set(string: "/", at: box.origin, style: accent, clip: box)
        prompt.input.render(in: Rect(x: box.x + 1, y: box.y, width: box.width - 1, height: 1), into: &buffer)
        let help = Line(prompt.input.text.isEmpty ? "~op NAME ~c 401 ~m ~u ~h ~b ~hop ~retry ~refresh ~err ~held ~edited ~cache ~finding ! & | ( ) · Enter applies · Esc clears" : "", style: .dim)
        guard box.y > area.y else { return }
        let above = Rect(x: area.x, y: box.y - 1, width: area.width, height: 1)
        guard let error = prompt.error else {
            if !help.spans[0].text.isEmpty {
                buffer.fill(above)
                _ = buffer.set(line: help.cut(to: above.width), at: above.origin, clip: above)
            }
            return
        }
        buffer.fill(above)
        let column = error.position + 1 <= above.width - 12 ? error.position : 0
        let text = String(repeating: " ", count: column) + "^ " + error.description
        _ = buffer.set(line: Line(text, style: bad).cut(to: above.width), at: above.origin, clip: above)
    }
}
