import Foundation

/// The readable table, then one JSON line per figure, measured or not (lines starting with
/// `{`, so `grep '^{'` extracts them).
struct Report {
    var rows: [Row]
    var mode: String

    func render() -> String {
        let header = ["figure", "value", "unit", "baseline", "ratio", "×floor", "target", ""]
        let cells: [[String]?] = rows.map { row in
            guard case .measured(let figure) = row else { return nil }
            return [
                figure.name, formatValue(figure.value, unit: figure.unit), figure.unit,
                figure.baseline ?? "", figure.ratio.map { String(format: "%.2f", $0) } ?? "",
                figure.floorRatio.map { String(format: "%.2f", $0) } ?? "",
                figure.target?.description(unit: figure.unit) ?? "",
                figure.meetsTarget.map { $0 ? "PASS" : "MISS" } ?? "",
            ]
        }
        var widths = header.map(\.count)
        widths[0] = max(widths[0], rows.map(\.name.count).max() ?? 0)
        for line in cells.compactMap({ $0 }) {
            for (column, cell) in line.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        func layout(_ line: [String], header: Bool = false) -> String {
            let padded = line.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                // Numbers line up on the right.
                return !header && (column == 1 || column == 4 || column == 5) ? pad + cell : cell + pad
            }
            return padded.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
        var text = "chainlab-bench (\(mode))\n" + layout(header, header: true) + "\n"
        for (row, line) in zip(rows, cells) {
            if let line {
                text += layout(line) + "\n"
            } else if case .unmeasured(let figure) = row {
                let name = figure.name.padding(toLength: widths[0], withPad: " ", startingAt: 0)
                text += "\(name)  \(figure.reason)" + (figure.target.map { " (target \($0.description(unit: figure.unit)))" } ?? "") + "\n"
            }
        }
        return text
    }

    var jsonLines: [String] {
        rows.map { row in
            switch row {
            case .measured(let figure): figure.jsonLine
            case .unmeasured(let figure): figure.jsonLine
            }
        }
    }
}

/// Large counts with thousands separators, small values with the precision they deserve.
func formatValue(_ value: Double, unit: String) -> String {
    if abs(value) >= 100 { return grouped(value) }
    return String(format: "%.1f", value)
}

/// `5,000,000`: rounded to a whole number, with thousands separators.
func grouped(_ value: Double) -> String {
    guard value.isFinite else { return String(value) }
    let digits = String(Int(value.rounded()).magnitude)
    var out = ""
    for (offset, character) in digits.enumerated() {
        if offset > 0, (digits.count - offset) % 3 == 0 { out += "," }
        out.append(character)
    }
    return (value < 0 ? "-" : "") + out
}

/// `2`, `1.5`: without trailing zeros.
func plain(_ value: Double) -> String {
    value.rounded() == value ? String(Int(value)) : String(value)
}
