public import ChainKit
public import Lab
public import TerminalUI

/// The modal header editor: rows of name and value, validated as they would be sent, with
/// errors shown beside the row; nothing reaches the lab until the edit is confirmed.
///
/// At a post stop the first row is `:status`, the response status.
public struct HeaderEditor: Sendable, Hashable {
    /// Which message the headers belong to.
    public enum Target: Sendable, Hashable {
        case request, response
    }

    public struct Row: Sendable, Hashable {
        public var name: TextInput
        public var value: TextInput
    }

    public static let statusName = ":status"

    public var request: Int
    public var target: Target
    public var rows: [Row]
    /// The focused row and field (0 name, 1 value).
    public var row = 0
    public var column = 1
    /// Validation errors by row.
    public var errors: [Int: String] = [:]
    /// Whether secret values (Authorization, Cookie…) are shown; masked until revealed, as
    /// everywhere on screen (`v` before opening the editor, `Ctrl-R` inside it).
    public var revealsSecrets = false

    public init(request: Int, target: Target, headers: HTTPFields, status: Int?) {
        self.request = request
        self.target = target
        var rows = headers.map { Row(name: TextInput(text: $0.name, isFocused: false), value: TextInput(text: $0.value, isFocused: false)) }
        if target == .response {
            rows.insert(Row(name: TextInput(text: HeaderEditor.statusName, isFocused: false), value: TextInput(text: status.map(String.init) ?? "", isFocused: false)), at: 0)
        }
        if rows.isEmpty { rows = [Row(name: TextInput(text: "", isFocused: false), value: TextInput(text: "", isFocused: false))] }
        self.rows = rows
        column = target == .response ? 1 : 0
        focus()
    }

    private mutating func focus() {
        for index in rows.indices {
            rows[index].name.isFocused = index == row && column == 0
            rows[index].value.isFocused = index == row && column == 1
        }
    }

    private func isStatusRow(_ index: Int) -> Bool {
        target == .response && index == 0
    }

    /// What a key did: nothing more to do, the edit was confirmed, or it was cancelled.
    public enum Outcome: Sendable, Hashable {
        case editing
        case confirmed(LabCommand)
        case cancelled
    }

    /// Handles one key.
    public mutating func handle(_ key: Key) -> Outcome {
        switch OverlayKeymap.action(for: key, in: .editor) {
        case .cancel: return .cancelled
        case .apply:
            if let command = validated() { return .confirmed(command) }
            return .editing
        case .reveal: revealsSecrets.toggle()
        case .selectUp: row = max(0, row - 1)
        case .selectDown: row = min(rows.count - 1, row + 1)
        case .nextField:
            if column == 0 { column = 1 } else if row < rows.count - 1 { row += 1; column = isStatusRow(row) ? 1 : 0 }
        case .previousField:
            if column == 1 && !isStatusRow(row) { column = 0 } else if row > 0 { row -= 1; column = 1 }
        case .addRow:
            rows.insert(Row(name: TextInput(text: "", isFocused: false), value: TextInput(text: "", isFocused: false)), at: row + 1)
            shiftErrors(from: row + 1, by: 1)
            row += 1
            column = 0
        case .deleteRow:
            guard !isStatusRow(row) else { break }
            rows.remove(at: row)
            errors[row] = nil
            shiftErrors(from: row + 1, by: -1)
            if rows.isEmpty || (target == .response && rows.count == 1) {
                rows.append(Row(name: TextInput(text: "", isFocused: false), value: TextInput(text: "", isFocused: false)))
            }
            row = min(row, rows.count - 1)
        default:
            if column == 0 && isStatusRow(row) { break }
            if column == 0 { _ = rows[row].name.handle(key) } else { _ = rows[row].value.handle(key) }
            errors[row] = nil
        }
        focus()
        return .editing
    }

    /// Types `text` into the focused field in one insertion (a paste); false when the field
    /// could not take all of it. The status row's name is not editable.
    public mutating func type(_ text: String) -> Bool {
        if column == 0 && isStatusRow(row) { return true }
        errors[row] = nil
        return column == 0 ? rows[row].name.insert(contentsOf: text) : rows[row].value.insert(contentsOf: text)
    }

    private mutating func shiftErrors(from start: Int, by offset: Int) {
        errors = Dictionary(uniqueKeysWithValues: errors.map { ($0.key >= start ? $0.key + offset : $0.key, $0.value) })
    }

    /// The command the edit amounts to, or nil with ``errors`` filled in.
    mutating func validated() -> LabCommand? {
        errors = [:]
        var fields = HTTPFields()
        var status: Int?
        for (index, row) in rows.enumerated() {
            if isStatusRow(index) {
                guard let value = Int(row.value.text), (100...599).contains(value) else {
                    errors[index] = "status must be a number from 100 to 599"
                    continue
                }
                status = value
                continue
            }
            if row.name.text.isEmpty && row.value.text.isEmpty { continue }
            do {
                try fields.append(row.name.text, row.value.text)
            } catch {
                errors[index] = error.description
            }
        }
        guard errors.isEmpty else { return nil }
        switch target {
        case .request: return .editRequestHeaders(request: request, headers: fields)
        case .response: return .editResponse(request: request, status: status, headers: fields)
        }
    }
}
