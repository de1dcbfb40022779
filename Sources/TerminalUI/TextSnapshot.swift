import Foundation

/// Helpers for tests that compare rendered screens with literal lines or snapshot files.
///
/// A snapshot file holds one framed line per row, `|` + row + `|`, so trailing spaces
/// survive editors. Test targets decide when to re-record (for ChainLab: when
/// `CHAINLAB_RECORD_SNAPSHOTS=1`); this type never reads the environment.
///
/// ```swift
/// let lines = TextSnapshot.render(width: 20, height: 3) { area, buffer in
///     Block(title: "Requests").render(in: area, into: &buffer)
/// }
/// #expect(TextSnapshot.lineDiff(expected: ["┌ Requests ────────┐", ...], actual: lines) == nil)
/// ```
public enum TextSnapshot {
    /// Renders `widget` into a fresh `width`×`height` buffer and returns its lines.
    public static func render(_ widget: some Widget, width: Int, height: Int) -> [String] {
        render(width: width, height: height) { area, buffer in widget.render(in: area, into: &buffer) }
    }

    /// Runs `draw` on a fresh `width`×`height` buffer (with its whole area) and returns its lines.
    public static func render(width: Int, height: Int, _ draw: (Rect, inout Buffer) -> Void) -> [String] {
        var buffer = Buffer(width: width, height: height)
        draw(buffer.area, &buffer)
        return buffer.lines
    }

    /// nil when the lines are equal; otherwise a readable line diff, every row framed in
    /// `|` so trailing spaces show, `-` for expected and `+` for actual rows.
    public static func lineDiff(expected: [String], actual: [String]) -> String? {
        guard expected != actual else { return nil }
        var report = ["Rendered lines differ (- expected, + actual):"]
        for index in 0..<max(expected.count, actual.count) {
            let want = index < expected.count ? expected[index] : nil
            let got = index < actual.count ? actual[index] : nil
            if want == got, let want {
                report.append("  |\(want)|")
            } else {
                if let want { report.append("- |\(want)|") }
                if let got { report.append("+ |\(got)|") }
            }
        }
        return report.joined(separator: "\n")
    }

    /// What comparing with a snapshot file found.
    public enum Outcome: Hashable, Sendable {
        case matched
        /// The file was (re)written with the actual lines; a test should fail so the new
        /// file is reviewed before it is trusted.
        case recorded(path: String)
        /// The file differs; the associated text is the line diff.
        case mismatch(String)
    }

    /// Compares `lines` with the snapshot file at `path`, or writes the file when `record`
    /// is true or the file does not exist yet.
    public static func compare(_ lines: [String], withFileAt path: String, record: Bool) -> Outcome {
        let manager = FileManager.default
        if !record, manager.fileExists(atPath: path) {
            guard let contents = try? String(contentsOfFile: path, encoding: .utf8) else {
                return .mismatch("cannot read the snapshot file \(path)")
            }
            let expected = unframed(contents)
            return lineDiff(expected: expected, actual: lines).map { .mismatch("\(path)\n\($0)") } ?? .matched
        }
        let directory = (path as NSString).deletingLastPathComponent
        do {
            try manager.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try framed(lines).write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            return .mismatch("cannot write the snapshot file \(path): \(error)")
        }
        return .recorded(path: path)
    }

    static func framed(_ lines: [String]) -> String {
        lines.map { "|\($0)|\n" }.joined()
    }

    static func unframed(_ contents: String) -> [String] {
        contents.split(separator: "\n", omittingEmptySubsequences: false).dropLast(contents.hasSuffix("\n") ? 1 : 0).map { line in
            var row = Substring(line)
            if row.hasPrefix("|") { row = row.dropFirst() }
            if row.hasSuffix("|") { row = row.dropLast() }
            return String(row)
        }
    }
}
