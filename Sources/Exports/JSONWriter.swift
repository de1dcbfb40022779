import Timeline
import Wire

/// Writes JSON with keys in the order they are given, straight into a string: exports stay
/// readable (`seq` first) and a million events never become a tree of dictionaries.
struct JSONWriter {
    private(set) var text = ""
    /// One flag per open container: whether the next member needs a comma before it.
    private var needsComma: [Bool] = [false]
    private var lineBreakPending = false

    mutating func beginObject() { value("{"); needsComma.append(false) }
    mutating func endObject() { close("}") }
    mutating func beginArray() { value("["); needsComma.append(false) }
    mutating func endArray() { close("]") }

    /// Writes `"name":`; the member's value follows with any of the value methods.
    mutating func key(_ name: String) {
        separate()
        JSONValue.writeString(name, into: &text)
        text += ":"
        // The value after a key takes no comma of its own.
        needsComma[needsComma.count - 1] = false
    }

    mutating func string(_ value: String?) {
        guard let value else { return null() }
        separate()
        JSONValue.writeString(value, into: &text)
    }

    mutating func int(_ value: Int?) {
        guard let value else { return null() }
        self.value(String(value))
    }

    /// Shortest text that reads back as the same Double, so times round-trip exactly.
    mutating func double(_ value: Double) {
        value.isFinite ? self.value(value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : "\(value)") : null()
    }

    mutating func bool(_ value: Bool?) {
        guard let value else { return null() }
        self.value(value ? "true" : "false")
    }

    mutating func null() { value("null") }

    mutating func strings(_ values: [String]) {
        beginArray()
        for value in values { string(value) }
        endArray()
    }

    /// A header diff as `{"added": […], "changed": […], "removed": […]}`, as every export
    /// writes it.
    mutating func diff(_ diff: HeaderDiff) {
        beginObject()
        key("added")
        strings(diff.added)
        key("changed")
        strings(diff.changed)
        key("removed")
        strings(diff.removed)
        endObject()
    }

    /// Puts the next member, or the closing bracket, on a new line: exports are read by
    /// people and diffed.
    mutating func newline() { lineBreakPending = true }

    private mutating func value(_ literal: String) {
        separate()
        text += literal
    }

    private mutating func separate() {
        if needsComma[needsComma.count - 1] { text += "," }
        needsComma[needsComma.count - 1] = true
        breakLineIfPending()
    }

    private mutating func close(_ bracket: String) {
        needsComma.removeLast()
        breakLineIfPending()
        text += bracket
    }

    private mutating func breakLineIfPending() {
        if lineBreakPending { text += "\n" }
        lineBreakPending = false
    }
}
