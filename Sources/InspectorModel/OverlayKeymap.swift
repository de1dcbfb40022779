public import TerminalUI

/// What a key does while an overlay is open.
public enum OverlayAction: String, Sendable, Hashable, CaseIterable {
    case scrollDown, scrollUp, pageDown, pageUp, close, confirm
    case timeout, cancellation, transportError
    case apply, cancel, clear, edit, next, previous
    case selectUp, selectDown, moveUp, moveDown, switchFormat
    case reveal, nextField, previousField, addRow, deleteRow
    case open, back, jump, toggle
}

/// One row of an overlay's keymap. No keys means every key the rows above do not name.
public struct OverlayBinding: Sendable, Hashable {
    public var keys: [Key]
    public var action: OverlayAction
    public var summary: String
    /// The few words the overlay's own hint line shows, when it shows this row.
    public var label: String?

    init(_ keys: [Key], _ action: OverlayAction, _ summary: String, hint label: String? = nil) {
        self.keys = keys
        self.action = action
        self.summary = summary
        self.label = label
    }
}

/// Each overlay's keys, as data: the overlay's update reads its action from here, and `?`,
/// `chainlab keys` and the tables of docs/keys.md are generated from the same rows.
public enum OverlayKeymap {
    public enum Overlay: String, Sendable, Hashable, CaseIterable {
        case help, confirmQuit, failPicker, filter, breakRules, search, reorder, export, editor, findings, findingEvent, compare, text

        /// The heading in the help overlay and docs/keys.md.
        public var title: String {
            switch self {
            case .help: "In help (?)"
            case .confirmQuit: "When quit asks"
            case .failPicker: "Choosing a failure (x)"
            case .filter: "Typing a filter (/)"
            case .breakRules: "Breakpoints by rule (Ctrl-B)"
            case .search: "Searching Detail (Ctrl-F)"
            case .reorder: "Reordering the chain (o)"
            case .export: "Exporting (w)"
            case .editor: "Editing headers (e)"
            case .findings: "Findings lists (L, F)"
            case .findingEvent: "An event a finding cites"
            case .compare: "Comparing (=, p, d, #)"
            case .text: "About (i) and curl (y)"
            }
        }
    }

    /// Scrolling an overlay longer than the screen: the help and a compare.
    private static let scrolling = [
        OverlayBinding([.char("j"), .down], .scrollDown, "scroll down", hint: "scroll"),
        OverlayBinding([.char("k"), .up], .scrollUp, "scroll up"),
        OverlayBinding([.pageDown], .pageDown, "scroll a page down"),
        OverlayBinding([.pageUp], .pageUp, "scroll a page up"),
    ]

    public static func bindings(_ overlay: Overlay) -> [OverlayBinding] {
        switch overlay {
        case .help: scrolling + [
            OverlayBinding([], .close, "close the help", hint: "close"),
        ]
        case .confirmQuit: [
            OverlayBinding([.char("y"), .char("Y")], .confirm, "quit, cancelling what is paused or running", hint: "quit"),
            OverlayBinding([], .close, "stay", hint: "stay"),
        ]
        case .failPicker: [
            OverlayBinding([.char("t")], .timeout, "fail with a timeout", hint: "timeout"),
            OverlayBinding([.char("c")], .cancellation, "fail with a cancellation", hint: "cancellation"),
            OverlayBinding([.char("e")], .transportError, "fail with a transport error", hint: "transport error"),
            OverlayBinding([], .close, "back, failing nothing", hint: "back"),
        ]
        case .filter: [
            OverlayBinding([.enter], .apply, "apply the expression and close; a wrong one is refused in place and the filter in force stays"),
            OverlayBinding([.escape], .clear, "clear the filter and close"),
            OverlayBinding([], .edit, "edit the filter"),
        ]
        case .breakRules: [
            OverlayBinding([.enter], .apply, "add the rule typed (post@AuthInterceptor if ~c 401) and close", hint: "add"),
            OverlayBinding([.up], .selectUp, "select the rule above"),
            OverlayBinding([.down], .selectDown, "select the rule below", hint: "select"),
            OverlayBinding([.ctrl("t")], .toggle, "switch the selected rule off or on", hint: "on/off"),
            OverlayBinding([.ctrl("d")], .deleteRow, "delete the selected rule", hint: "delete"),
            OverlayBinding([.escape], .close, "close", hint: "close"),
            OverlayBinding([], .edit, "edit the rule being typed"),
        ]
        case .search: [
            OverlayBinding([.enter, .down, .ctrl("n")], .next, "the next match", hint: "next"),
            OverlayBinding([.up, .ctrl("p")], .previous, "the previous match", hint: "previous"),
            OverlayBinding([.escape], .clear, "clear the search and close", hint: "clears"),
            OverlayBinding([], .edit, "edit what is searched for"),
        ]
        case .reorder: [
            OverlayBinding([.char("k"), .up], .selectUp, "select the layer above"),
            OverlayBinding([.char("j"), .down], .selectDown, "select the layer below", hint: "select"),
            OverlayBinding([.char("K")], .moveUp, "move the selected layer up"),
            OverlayBinding([.char("J")], .moveDown, "move the selected layer down", hint: "move"),
            OverlayBinding([.enter], .apply, "use this chain for new operations", hint: "apply to new operations"),
            OverlayBinding([.escape], .cancel, "keep the chain as it was", hint: "cancel"),
        ]
        case .export: [
            OverlayBinding([.tab], .switchFormat, "the next format: JSON, HAR, OTLP"),
            OverlayBinding([.ctrl("t")], .toggle, "while a filter is in force: write only the requests it shows, or all"),
            OverlayBinding([.enter], .apply, "write the file (secrets masked)", hint: "writes (secrets masked)"),
            OverlayBinding([.escape], .cancel, "write nothing", hint: "cancels"),
            OverlayBinding([], .edit, "edit the file name"),
        ]
        case .editor: [
            OverlayBinding([.enter], .apply, "apply the edit at the stop", hint: "apply"),
            OverlayBinding([.escape], .cancel, "leave the headers as they were", hint: "cancel"),
            OverlayBinding([.tab], .nextField, "the next field", hint: "next field"),
            OverlayBinding([.backTab], .previousField, "the previous field"),
            OverlayBinding([.up], .selectUp, "the row above"),
            OverlayBinding([.down], .selectDown, "the row below"),
            OverlayBinding([.ctrl("n")], .addRow, "add a row below", hint: "add row"),
            OverlayBinding([.ctrl("d")], .deleteRow, "delete the row", hint: "delete row"),
            OverlayBinding([.ctrl("r")], .reveal, "reveal or mask secret values"),
            OverlayBinding([], .edit, "edit the field"),
        ]
        case .findings: [
            OverlayBinding([.char("j"), .down], .selectDown, "the next finding", hint: "select"),
            OverlayBinding([.char("k"), .up], .selectUp, "the previous finding"),
            OverlayBinding([.enter], .open, "open the events it cites, or jump to its hop", hint: "open (or jump to the hop)"),
            OverlayBinding([], .close, "close the list", hint: "close"),
        ]
        case .findingEvent: [
            OverlayBinding([.char("n"), .char("j"), .down], .next, "the next cited event", hint: "next"),
            OverlayBinding([.char("p"), .char("k"), .up], .previous, "the previous cited event", hint: "previous"),
            OverlayBinding([.enter], .jump, "jump to the event's request and hop", hint: "go to it"),
            OverlayBinding([.escape], .back, "back to the list", hint: "back to the list"),
        ]
        case .compare: scrolling + [
            OverlayBinding([.char("v")], .reveal, "reveal or mask secrets", hint: "reveal"),
            OverlayBinding([], .close, "close the compare", hint: "close"),
        ]
        case .text: [
            OverlayBinding([], .close, "close", hint: "close"),
        ]
        }
    }

    /// The overlay's own hint line, from the rows that have a label:
    /// `t timeout · c cancellation · e transport error · Esc back`. A select, move or scroll
    /// pair shows once (`j/k select`); the row for every other key shows as `Esc`, one of them.
    public static func hints(_ overlay: Overlay) -> String {
        hintPairs(overlay).map { "\($0.key) \($0.label)" }.joined(separator: " · ")
    }

    /// The hint line's entries as key and label, for a status line that shows them.
    public static func hintPairs(_ overlay: Overlay) -> [(key: String, label: String)] {
        let rows = bindings(overlay)
        return rows.compactMap { row in row.label.map { (keyText(row, in: rows), $0) } }
    }

    /// How a hint names a row's keys: its first key, joined with its partner's for the
    /// select and move pairs (`j/k`, `J/K`), `Esc` for the row of every other key.
    private static func keyText(_ row: OverlayBinding, in rows: [OverlayBinding]) -> String {
        guard let first = row.keys.first else { return "Esc" }
        let partner: OverlayAction? = switch row.action {
        case .selectDown: .selectUp
        case .moveDown: .moveUp
        case .scrollDown: .scrollUp
        default: nil
        }
        guard let partner, let other = rows.first(where: { $0.action == partner })?.keys.first else {
            return row.keys.prefix(2).map(\.name).joined(separator: "/")
        }
        return first.name + "/" + other.name
    }

    /// What `key` does in `overlay`: the row that names it, else the row for every other
    /// key, else nothing.
    public static func action(for key: Key, in overlay: Overlay) -> OverlayAction? {
        let rows = bindings(overlay)
        return (rows.first { $0.keys.contains(key) } ?? rows.first { $0.keys.isEmpty })?.action
    }
}

extension Overlay {
    /// The table of this overlay's keys: what its update reads and its status line offers.
    public var keymap: OverlayKeymap.Overlay {
        switch self {
        case .help: .help
        case .confirmQuit: .confirmQuit
        case .scenarioInfo, .curl: .text
        case .editor: .editor
        case .export: .export
        case .failPicker: .failPicker
        case .reorder: .reorder
        case .filter: .filter
        case .breakRules: .breakRules
        case .findings(let list): list.openEvent == nil ? .findings : .findingEvent
        case .search: .search
        case .compare: .compare
        }
    }
}
