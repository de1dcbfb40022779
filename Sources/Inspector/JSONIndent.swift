/// JSON text laid out one member per line, in the order the server sent it: the Detail
/// pane shows bodies this way. Only whitespace between tokens changes; strings, numbers
/// and key order stay as they were, so what is shown is what was received.
///
/// ```swift
/// JSONIndent.pretty(#"{"data":{"me":{"id":"1"}}}"#)
/// // {
/// //   "data": {
/// //     "me": {
/// //       "id": "1"
/// // …
/// ```
enum JSONIndent {
    /// `text` indented, or nil when it does not start like a JSON object or array, or its
    /// brackets do not balance (a cut preview, or not JSON at all).
    static func pretty(_ text: String, indent: String = "  ") -> String? {
        let scalars = Array(text.unicodeScalars)
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }), scalars[first] == "{" || scalars[first] == "[" else { return nil }
        var output = String.UnicodeScalarView()
        var depth = 0
        var inString = false
        var escaped = false
        var index = first
        func newline() {
            output.append("\n")
            for _ in 0..<depth { output.append(contentsOf: indent.unicodeScalars) }
        }
        while index < scalars.count {
            let scalar = scalars[index]
            defer { index += 1 }
            if inString {
                output.append(scalar)
                if escaped { escaped = false } else if scalar == "\\" { escaped = true } else if scalar == "\"" { inString = false }
                continue
            }
            switch scalar {
            case "\"":
                inString = true
                output.append(scalar)
            case "{", "[":
                output.append(scalar)
                // An empty object or array stays on one line.
                if let close = scalars[(index + 1)...].firstIndex(where: { !$0.properties.isWhitespace }),
                    scalars[close] == (scalar == "{" ? "}" : "]") {
                    output.append(scalars[close])
                    index = close
                    continue
                }
                depth += 1
                newline()
            case "}", "]":
                depth -= 1
                guard depth >= 0 else { return nil }
                newline()
                output.append(scalar)
            case ",":
                output.append(scalar)
                newline()
            case ":":
                output.append(contentsOf: ": ".unicodeScalars)
            case " ", "\t", "\n", "\r":
                break
            default:
                output.append(scalar)
            }
        }
        guard depth == 0, !inString else { return nil }
        return String(output)
    }
}
