public import ChainKit
public import Foundation
import Vocabulary

/// A session's commands saved to a file, so `chainlab trace --replay` reproduces the same
/// timeline.
///
/// ```json
/// {"format": "chainlab-recording", "version": 1, "scenario": "basics",
///  "commands": [{"command": "launch", "operation": 0},
///               {"command": "step", "request": 1, "at": {"hop": 0, "position": "pre"}}]}
/// ```
public struct Recording: Sendable, Hashable {
    public var scenario: String
    public var commands: [RecordedCommand]

    public init(scenario: String, commands: [RecordedCommand]) {
        self.scenario = scenario
        self.commands = commands
    }

    /// Why a recording could not be read: what was wrong and where.
    public struct DecodingError: Error, Sendable, Hashable, CustomStringConvertible {
        public let path: String
        public let reason: String
        public init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }
        public var description: String { path.isEmpty ? "recording: \(reason)" : "recording at \(path): \(reason)" }
    }

    /// The recording as JSON text, one command per line.
    public var json: String {
        let lines = commands.map { "    " + Self.encode($0).jsonString }
        return "{\n  \"format\": \"chainlab-recording\",\n  \"version\": 1,\n  \"scenario\": \(JSONValue.string(scenario).jsonString),\n  \"commands\": [\n"
            + lines.joined(separator: ",\n") + "\n  ]\n}\n"
    }

    /// Reads a recording written by ``json``.
    public init(json data: Data) throws(DecodingError) {
        let root: JSONValue
        do { root = try JSONValue(parsing: data) } catch { throw DecodingError(path: "", reason: error.description) }
        guard root["format"]?.stringValue == "chainlab-recording" else {
            throw DecodingError(path: "format", reason: "expected \"chainlab-recording\"; this is not a ChainLab recording")
        }
        guard root["version"]?.numberValue == 1 else { throw DecodingError(path: "version", reason: "unsupported version; supported: 1") }
        guard let scenario = root["scenario"]?.stringValue else { throw DecodingError(path: "scenario", reason: "expected a string") }
        guard let entries = root["commands"]?.arrayValue else { throw DecodingError(path: "commands", reason: "expected an array") }
        var commands: [RecordedCommand] = []
        for (index, entry) in entries.enumerated() {
            commands.append(try Self.decode(entry, path: "commands[\(index)]"))
        }
        self.init(scenario: scenario, commands: commands)
    }

    static func encode(_ recorded: RecordedCommand) -> JSONValue {
        var object: [String: JSONValue] = [:]
        func set(_ name: String, request: Int? = nil) {
            object["command"] = .string(name)
            if let request { object["request"] = .number(Double(request)) }
        }
        switch recorded.command {
        case .launch(let operation): set("launch"); object["operation"] = .number(Double(operation))
        case .step(let request): set("step", request: request)
        case .resume(let request): set("resume", request: request)
        case .resumeAll: set("resumeAll")
        case .pass(let request): set("pass", request: request)
        case .editRequestHeaders(let request, let headers):
            set("editRequestHeaders", request: request)
            object["headers"] = .array(headers.map { [.string($0.name), .string($0.value)] })
        case .editResponse(let request, let status, let headers):
            set("editResponse", request: request)
            if let status { object["status"] = .number(Double(status)) }
            if let headers { object["headers"] = .array(headers.map { [.string($0.name), .string($0.value)] }) }
        case .force401(let request): set("force401", request: request)
        case .forceRetry(let request): set("forceRetry", request: request)
        case .fail(let request, let fault): set("fail", request: request); object["fault"] = .string(fault.rawValue)
        case .delay(let request, let seconds): set("delay", request: request); object["seconds"] = .number(seconds)
        case .advanceClock(let seconds): set("advanceClock"); object["seconds"] = .number(seconds)
        case .expireTokens: set("expireTokens")
        }
        if let place = recorded.place { object["at"] = encode(place) }
        return .object(object)
    }

    static func encode(_ place: StopPlace) -> JSONValue {
        switch place {
        case .launch: "launch"
        case .wake: "wake"
        case .refresh: "refresh"
        case .hop(let hop, let position): ["hop": .number(Double(hop)), "position": .string(position.rawValue)]
        }
    }

    static let commandNames = ["launch", "step", "resume", "resumeAll", "pass", "editRequestHeaders", "editResponse", "force401", "forceRetry", "fail", "delay", "advanceClock", "expireTokens"]

    static func decode(_ entry: JSONValue, path: String) throws(DecodingError) -> RecordedCommand {
        func integer(_ key: String) throws(DecodingError) -> Int {
            guard let value = entry[key]?.numberValue, value >= 0, value <= 1_000_000, value.rounded() == value else {
                throw DecodingError(path: "\(path).\(key)", reason: "expected a whole number from 0 to 1000000")
            }
            return Int(value)
        }
        func seconds() throws(DecodingError) -> Double {
            guard let value = entry["seconds"]?.numberValue, value >= 0 else { throw DecodingError(path: "\(path).seconds", reason: "expected a number of seconds ≥ 0") }
            return value
        }
        func headers() throws(DecodingError) -> HTTPFields {
            guard let pairs = entry["headers"]?.arrayValue else { throw DecodingError(path: "\(path).headers", reason: "expected an array of [name, value] pairs") }
            var fields = HTTPFields()
            for (index, pair) in pairs.enumerated() {
                guard let name = pair[0]?.stringValue, let value = pair[1]?.stringValue, pair.arrayValue?.count == 2 else {
                    throw DecodingError(path: "\(path).headers[\(index)]", reason: "expected [name, value]")
                }
                do { try fields.append(name, value) } catch { throw DecodingError(path: "\(path).headers[\(index)]", reason: error.description) }
            }
            return fields
        }
        guard let name = entry["command"]?.stringValue else { throw DecodingError(path: "\(path).command", reason: "expected a string") }
        let command: LabCommand
        switch name {
        case "launch": command = .launch(operation: try integer("operation"))
        case "step": command = .step(request: try integer("request"))
        case "resume": command = .resume(request: try integer("request"))
        case "resumeAll": command = .resumeAll
        case "pass": command = .pass(request: try integer("request"))
        case "editRequestHeaders": command = .editRequestHeaders(request: try integer("request"), headers: try headers())
        case "editResponse":
            command = .editResponse(request: try integer("request"), status: entry["status"] == nil ? nil : try integer("status"), headers: entry["headers"] == nil ? nil : try headers())
        case "force401": command = .force401(request: try integer("request"))
        case "forceRetry": command = .forceRetry(request: try integer("request"))
        case "fail":
            guard let fault = entry["fault"]?.stringValue.flatMap(LabFault.init(rawValue:)) else {
                throw DecodingError(path: "\(path).fault", reason: "expected one of \(LabFault.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            command = .fail(request: try integer("request"), fault: fault)
        case "delay": command = .delay(request: try integer("request"), seconds: try seconds())
        case "advanceClock": command = .advanceClock(seconds: try seconds())
        case "expireTokens": command = .expireTokens
        default:
            throw DecodingError(path: "\(path).command", reason: "unknown \"\(VisibleEscapes.escape(name))\"; known: \(commandNames.joined(separator: ", "))")
        }
        var place: StopPlace?
        if let at = entry["at"] {
            switch at {
            case "launch": place = .launch
            case "wake": place = .wake
            case "refresh": place = .refresh
            default:
                guard let hop = at["hop"]?.numberValue, hop >= 0, hop <= 1_000_000, let position = at["position"]?.stringValue.flatMap(StopPosition.init(rawValue:)) else {
                    throw DecodingError(path: "\(path).at", reason: "expected \"launch\", \"wake\", \"refresh\" or {\"hop\": N, \"position\": \"pre\"|\"post\"}")
                }
                place = .hop(Int(hop), position)
            }
        }
        return RecordedCommand(command: command, place: place)
    }
}
