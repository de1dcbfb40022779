public import Wire

/// How one header list differs from another: the names added, changed and removed.
///
/// Names compare ignoring ASCII case; a name is *changed* when it is in both lists with
/// different values (all values of a repeated name compare as one list, in order).
///
/// ```swift
/// let before = try HTTPFields(["Accept": "application/json"])
/// let after = try HTTPFields(["accept": "application/json", "Authorization": "Bearer abc"])
/// HeaderDiff(from: before, to: after).added // ["Authorization"]
/// ```
public struct HeaderDiff: Sendable, Hashable {
    /// No difference.
    // Computed, not stored: a stored one is a global read through a lazy initializer, and
    // a reference read out of it is retained, once per event that changes no header.
    public static var none: HeaderDiff { HeaderDiff(lists: nil) }

    /// Most events change no header, so the three lists live behind one optional reference:
    /// an empty diff costs an event 8 bytes and no reference counting.
    private final class Lists: Sendable {
        let added: [String], changed: [String], removed: [String]
        init(added: [String], changed: [String], removed: [String]) {
            self.added = added
            self.changed = changed
            self.removed = removed
        }
    }

    private var lists: Lists?

    /// Names only in the new list, spelled and ordered as there.
    public var added: [String] {
        get { lists?.added ?? [] }
        set { self = HeaderDiff(added: newValue, changed: changed, removed: removed) }
    }

    /// Names in both lists with different values, spelled and ordered as in the new list.
    public var changed: [String] {
        get { lists?.changed ?? [] }
        set { self = HeaderDiff(added: added, changed: newValue, removed: removed) }
    }

    /// Names only in the old list, spelled and ordered as there.
    public var removed: [String] {
        get { lists?.removed ?? [] }
        set { self = HeaderDiff(added: added, changed: changed, removed: newValue) }
    }

    private init(lists: Lists?) {
        self.lists = lists
    }

    public init(added: [String] = [], changed: [String] = [], removed: [String] = []) {
        let isEmpty = added.isEmpty && changed.isEmpty && removed.isEmpty
        lists = isEmpty ? nil : Lists(added: added, changed: changed, removed: removed)
    }

    /// The difference going from `old` to `new`.
    // Borrowed: most diffs only compare the two lists, which needs no reference of its own.
    public init(from old: borrowing HTTPFields, to new: borrowing HTTPFields) {
        // Most hops hand the headers on as they got them: no lists to make, not even empty ones.
        guard old != new else {
            lists = nil
            return
        }
        lists = HeaderDiff(differing: copy old, copy new).lists
    }

    /// The difference between two lists known to differ.
    private init(differing old: HTTPFields, _ new: HTTPFields) {
        let oldValues = HeaderDiff.valuesByName(old)
        let newValues = HeaderDiff.valuesByName(new)
        var added: [String] = [], changed: [String] = [], removed: [String] = []
        for (key, name, values) in HeaderDiff.names(of: new, values: newValues) {
            if let previous = oldValues[key] {
                if previous.values != values { changed.append(name) }
            } else {
                added.append(name)
            }
        }
        for (key, name, _) in HeaderDiff.names(of: old, values: oldValues) where newValues[key] == nil {
            removed.append(name)
        }
        self.init(added: added, changed: changed, removed: removed)
    }

    /// Whether nothing was added, changed or removed.
    public var isEmpty: Bool { lists == nil }

    /// `==` without copying the lists out: one identity check when both share their lists
    /// (what the store asks of every diff it keeps once per chunk).
    func isSame(as other: HeaderDiff) -> Bool {
        guard let lists, let otherLists = other.lists else { return lists == nil && other.lists == nil }
        return lists === otherLists
            || (lists.added == otherLists.added && lists.changed == otherLists.changed && lists.removed == otherLists.removed)
    }

    public static func == (lhs: HeaderDiff, rhs: HeaderDiff) -> Bool {
        lhs.added == rhs.added && lhs.changed == rhs.changed && lhs.removed == rhs.removed
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(added)
        hasher.combine(changed)
        hasher.combine(removed)
    }

    private static func valuesByName(_ fields: HTTPFields) -> [String: (name: String, values: [String])] {
        var result: [String: (name: String, values: [String])] = [:]
        for field in fields {
            result[lowercased(field.name), default: (field.name, [])].values.append(field.value)
        }
        return result
    }

    /// Each distinct name once, in order of first appearance.
    private static func names(
        of fields: HTTPFields, values: [String: (name: String, values: [String])]
    ) -> [(key: String, name: String, values: [String])] {
        var seen = Set<String>()
        var result: [(key: String, name: String, values: [String])] = []
        for field in fields {
            let key = lowercased(field.name)
            if seen.insert(key).inserted, let entry = values[key] { result.append((key, entry.name, entry.values)) }
        }
        return result
    }

    /// Header names are ASCII tokens, so ASCII lowercasing is the whole of case folding here.
    package static func lowercased(_ name: String) -> String {
        String(decoding: name.utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
    }
}
