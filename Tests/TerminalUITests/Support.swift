import Foundation
import Testing
import TerminalUI

/// Fails the current test with a line diff when `actual` differs from `expected`.
func expectLines(_ actual: [String], _ expected: [String], sourceLocation: SourceLocation = #_sourceLocation) {
    if let diff = TextSnapshot.lineDiff(expected: expected, actual: actual) {
        Issue.record(Comment(rawValue: diff), sourceLocation: sourceLocation)
    }
}

/// Compares `lines` with `__Snapshots__/<name>.txt` next to this file; re-records it when
/// `CHAINLAB_RECORD_SNAPSHOTS=1`. A recorded snapshot fails the test so it gets reviewed.
func expectSnapshot(_ lines: [String], named name: String, filePath: String = #filePath, sourceLocation: SourceLocation = #_sourceLocation) {
    let directory = URL(fileURLWithPath: filePath).deletingLastPathComponent().appendingPathComponent("__Snapshots__")
    let path = directory.appendingPathComponent(name + ".txt").path
    let record = ProcessInfo.processInfo.environment["CHAINLAB_RECORD_SNAPSHOTS"] == "1"
    switch TextSnapshot.compare(lines, withFileAt: path, record: record) {
    case .matched:
        break
    case .recorded(let path):
        Issue.record("recorded snapshot \(path); review it and run the tests again", sourceLocation: sourceLocation)
    case .mismatch(let diff):
        Issue.record(Comment(rawValue: diff), sourceLocation: sourceLocation)
    }
}
