/// A line diff by longest common subsequence: the lines both sides keep, in order, and what
/// only one side has. The common start and end are matched first, so two bodies that differ
/// in a few lines cost a table only as large as the lines that differ.
///
/// ```
/// LineDiff.edits(["{", "a", "}"], ["{", "b", "}"])
/// // [.same("{"), .removed("a"), .added("b"), .same("}")]
/// ```
package enum LineDiff {
    package enum Edit: Hashable {
        case same(String)
        case removed(String)
        case added(String)
    }

    /// Above this many cells the middle is shown as removed, then added, rather than matched.
    package static let tableLimit = 4_000_000

    package static func edits(_ old: [String], _ new: [String]) -> [Edit] {
        var prefix = 0
        while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix, suffix < new.count - prefix, old[old.count - 1 - suffix] == new[new.count - 1 - suffix] { suffix += 1 }
        let a = old[prefix..<(old.count - suffix)], b = new[prefix..<(new.count - suffix)]
        var edits = old[..<prefix].map(Edit.same)
        edits += middle(Array(a), Array(b))
        edits += old[(old.count - suffix)...].map(Edit.same)
        return edits
    }

    /// The middle parts: `common[i][j]` is the length of the longest common subsequence of
    /// `a[i...]` and `b[j...]`; walking from the start, a line both share is kept, otherwise
    /// the side whose skip keeps the longer common rest goes first (removals before additions).
    private static func middle(_ a: [String], _ b: [String]) -> [Edit] {
        guard !a.isEmpty, !b.isEmpty, (a.count + 1) * (b.count + 1) <= tableLimit else {
            return a.map(Edit.removed) + b.map(Edit.added)
        }
        let width = b.count + 1
        var common = [Int32](repeating: 0, count: (a.count + 1) * width)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                common[i * width + j] = a[i] == b[j] ? common[(i + 1) * width + j + 1] + 1 : max(common[(i + 1) * width + j], common[i * width + j + 1])
            }
        }
        var edits: [Edit] = []
        var i = 0, j = 0
        while i < a.count, j < b.count {
            if a[i] == b[j] {
                edits.append(.same(a[i]))
                i += 1
                j += 1
            } else if common[(i + 1) * width + j] >= common[i * width + j + 1] {
                edits.append(.removed(a[i]))
                i += 1
            } else {
                edits.append(.added(b[j]))
                j += 1
            }
        }
        edits += a[i...].map(Edit.removed)
        edits += b[j...].map(Edit.added)
        return edits
    }
}
