import Foundation

/// One measured number, as the table and the JSON lines report it.
struct Figure: Sendable {
    var name: String
    var value: Double
    var unit: String
    /// The figure this one is compared with, measured in the same run; nil when none applies
    /// (or when `--only` left the baseline out).
    var baseline: String?
    /// `value / baseline.value`.
    var ratio: Double?
    /// The floor of a chain or stack figure (closures built once, no body work), when the
    /// baseline is not already the floor; nil otherwise.
    var floor: String?
    /// `value / floor.value`.
    var floorRatio: Double?
    var target: Target?

    init(name: String, value: Double, unit: String, baseline: Figure? = nil, floor: Figure? = nil, target: Target? = nil) {
        self.name = name
        self.value = value
        self.unit = unit
        self.baseline = baseline?.name
        self.ratio = baseline.map { value / $0.value }
        self.floor = floor?.name
        self.floorRatio = floor.map { value / $0.value }
        self.target = target
    }

    /// Whether the figure meets its target; nil without a target or without the ratio it needs.
    var meetsTarget: Bool? {
        guard let target else { return nil }
        switch target {
        case .ratioAtMost(let limit): return ratio.map { $0 <= limit }
        case .ratioAtLeast(let limit): return ratio.map { $0 >= limit }
        case .atLeast(let limit): return value >= limit
        case .atMost(let limit): return value <= limit
        }
    }

    /// `{"name", "value", "unit", "baseline", "ratio", "floor", "floor_ratio", "target", "met"}`
    /// on one line, keys in that order; `target` is the table's wording (`ratio ≤ 2`), `met`
    /// whether this run meets it.
    var jsonLine: String {
        "{\"name\":\(jsonString(name)),\"value\":\(jsonNumber(value)),\"unit\":\(jsonString(unit)),"
            + "\"baseline\":\(baseline.map(jsonString) ?? "null"),\"ratio\":\(ratio.map(jsonNumber) ?? "null"),"
            + "\"floor\":\(floor.map(jsonString) ?? "null"),\"floor_ratio\":\(floorRatio.map(jsonNumber) ?? "null"),"
            + "\"target\":\(target.map { jsonString($0.description(unit: unit)) } ?? "null"),"
            + "\"met\":\(meetsTarget.map { $0 ? "true" : "false" } ?? "null")}"
    }
}

/// What an issue asks of a figure.
enum Target: Sendable {
    /// The ratio against the baseline is at most this.
    case ratioAtMost(Double)
    /// The ratio against the baseline is at least this (rates: MB/s against Foundation's).
    case ratioAtLeast(Double)
    case atLeast(Double)
    case atMost(Double)

    func description(unit: String) -> String {
        switch self {
        case .ratioAtMost(let limit): "ratio ≤ \(plain(limit))"
        case .ratioAtLeast(let limit): "ratio ≥ \(plain(limit))"
        case .atLeast(let limit): "≥ \(grouped(limit)) \(unit)"
        case .atMost(let limit): "≤ \(grouped(limit)) \(unit)"
        }
    }
}

/// A figure the benchmark names but cannot measure yet; it is reported with the reason and
/// never given a number.
struct UnmeasuredFigure: Sendable {
    var name: String
    var unit: String
    var target: Target?
    var reason: String

    /// `{"name", "value": null, "unit", "target", "met": null, "reason"}` on one line.
    var jsonLine: String {
        "{\"name\":\(jsonString(name)),\"value\":null,\"unit\":\(jsonString(unit)),"
            + "\"target\":\(target.map { jsonString($0.description(unit: unit)) } ?? "null"),"
            + "\"met\":null,\"reason\":\(jsonString(reason))}"
    }
}

/// A line of the report.
enum Row: Sendable {
    case measured(Figure)
    case unmeasured(UnmeasuredFigure)

    var name: String {
        switch self {
        case .measured(let figure): figure.name
        case .unmeasured(let figure): figure.name
        }
    }
}

private func jsonString(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}

/// Three significant decimals are more than the noise allows; JSON has no NaN or infinity.
private func jsonNumber(_ value: Double) -> String {
    guard value.isFinite else { return "null" }
    if value.rounded() == value, abs(value) < 1e15 { return String(Int(value)) }
    return String((value * 1000).rounded() / 1000)
}
