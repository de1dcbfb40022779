import TerminalUI
import Foundation

/// Making hop names fit a column readably. (Values are cut at the end with `…`, never from
/// the left: ``Line/cut(to:)``.)
enum Fitting {
    /// Well-known abbreviations of interceptor and middleware names.
    static let abbreviations: [(String, String)] = [
        ("AutomaticPersistedQuery", "APQ"),
        ("JSONResponseParsing", "JSONParsing"),
        ("FallbackToCacheOnFailure", "CacheFallback"),
    ]

    /// `name` in at most `width` columns: whole when it fits; else without its `Interceptor`
    /// or `Middleware` suffix and with known abbreviations; else with an ellipsis in the
    /// middle, so both the start and the end stay readable. Detail always shows the full name.
    static func hopName(_ name: String, width: Int) -> String {
        guard TextWidth.of(name) > width else { return name }
        // A label with a note in parentheses, such as `cache (CacheFirst)`, drops the note.
        if let open = name.firstIndex(of: "("), open > name.startIndex {
            return hopName(String(name[..<open]).trimmingCharacters(in: .whitespaces), width: width)
        }
        var short = name
        for suffix in ["Interceptor", "Middleware"] where short.hasSuffix(suffix) && short.count > suffix.count {
            short = String(short.dropLast(suffix.count))
        }
        guard TextWidth.of(short) > width else { return short }
        for (long, abbreviation) in abbreviations { short = short.replacingOccurrences(of: long, with: abbreviation) }
        guard short.count > width else { return short }
        guard width > 2 else { return String(short.prefix(max(0, width))) }
        let head = (width - 1 + 1) / 2, tail = width - 1 - head
        return String(short.prefix(head)) + "…" + String(short.suffix(tail))
    }
}
