public import Scheduling
import ChainKit
public import Foundation
import Vocabulary
import Timeline

/// A session's commands saved to a file, so `chainlab trace --replay` reproduces the same
/// timeline.
///
/// ```json
/// {"format": "chainlab-recording", "version": 1, "scenario": "basics",
///  "commands": [{"command": "launch", "operation": 0},
///               {"command": "step", "request": 1, "at": {"hop": 0, "position": "pre"}}]}
/// ```
///
/// A command about a request with two lanes (an overlapping CacheAndNetwork fetch) says
/// which: `"lane": "cache"` or `"lane": "network"`. Without it, the command acts on the
/// request's only lane (recordings made before lanes existed replay as they did).
///
/// A run on a real server also keeps what it sent there: `"endpoint"`, `"headers"` (masked:
/// a credential's value is never written) and, for `--operation`, `"operations"` in the
/// scenario file's format, so a replay sends the same operations to the same server.
public struct Recording: Sendable, Hashable {
    public var scenario: String
    public var commands: [RecordedCommand]
    /// The server the run used (without credentials); nil in the lab.
    public var endpoint: String?
    /// The headers the run added to every request, as `Name: value`, masked.
    public var headers: [String]?
    /// The operations that took the scenario's place (`--operation`); nil: the scenario's own.
    public var operations: [Scenario.Operation]?

    public init(scenario: String, commands: [RecordedCommand], endpoint: String? = nil, headers: [String]? = nil, operations: [Scenario.Operation]? = nil) {
        self.scenario = scenario
        self.commands = commands
        self.endpoint = endpoint
        self.headers = headers
        self.operations = operations
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
        var run = ""
        if let endpoint { run += "  \"endpoint\": \(JSONValue.string(endpoint).jsonString),\n" }
        if let headers { run += "  \"headers\": \(JSONValue.array(headers.map { .string($0) }).jsonString),\n" }
        if let operations { run += "  \"operations\": \(JSONValue.array(operations.map(ScenarioCodec.operation)).jsonString),\n" }
        return "{\n  \"format\": \"chainlab-recording\",\n  \"version\": 1,\n  \"scenario\": \(JSONValue.string(scenario).jsonString),\n" + run + "  \"commands\": [\n"
            + lines.joined(separator: ",\n") + "\n  ]\n}\n"
    }

    /// Reads a recording written by ``json``, refusing anything unknown, mistyped or out of
    /// range with the JSON path of the problem (see ``LabLimits`` for the counts and sizes).
    /// Check it against the scenario it replays with ``validate(for:)`` before running it.
    public init(json data: Data) throws(DecodingError) {
        guard data.count <= LabLimits.recordingFileBytes else {
            throw DecodingError(path: "", reason: "the file has \(data.count) bytes; a recording may have at most \(LabLimits.recordingFileBytes)")
        }
        let root: JSONValue
        do { root = try JSONValue(parsing: data, options: LabLimits.fileParsing) } catch { throw DecodingError(path: "", reason: error.description) }
        guard case .object(let members) = root else { throw DecodingError(path: "", reason: "expected a JSON object at the top") }
        try Self.refuseUnknownKeys(members, known: ["format", "version", "scenario", "endpoint", "headers", "operations", "commands"], path: "")
        guard members["format"]?.stringValue == "chainlab-recording" else {
            throw DecodingError(path: "format", reason: "expected \"chainlab-recording\"; this is not a ChainLab recording")
        }
        guard members["version"]?.numberValue == 1 else { throw DecodingError(path: "version", reason: "unsupported version; supported: 1") }
        guard let scenario = members["scenario"]?.stringValue else { throw DecodingError(path: "scenario", reason: "expected a string") }
        guard let entries = members["commands"]?.arrayValue else { throw DecodingError(path: "commands", reason: "expected an array") }
        guard entries.count <= LabLimits.recordedCommands else {
            throw DecodingError(path: "commands", reason: "\(entries.count) commands; a recording may have at most \(LabLimits.recordedCommands)")
        }
        var commands: [RecordedCommand] = []
        commands.reserveCapacity(entries.count)
        var launches = 0
        for (index, entry) in entries.enumerated() {
            let path = "commands[\(index)]"
            let recorded = try Self.decode(entry, path: path)
            if case .launch = recorded.command {
                launches += 1
                guard launches <= LabLimits.recordedLaunches else {
                    throw DecodingError(path: path, reason: "more than \(LabLimits.recordedLaunches) launches; a recording may start at most \(LabLimits.recordedLaunches) requests")
                }
            }
            commands.append(recorded)
        }
        self.init(scenario: scenario, commands: commands)
        if let value = members["endpoint"] {
            guard let endpoint = value.stringValue, URL(string: endpoint)?.scheme != nil else { throw DecodingError(path: "endpoint", reason: "expected the server's URL as a string") }
            self.endpoint = endpoint
        }
        if let value = members["headers"] {
            guard let headers = value.arrayValue?.compactMap(\.stringValue), headers.count == value.arrayValue?.count else {
                throw DecodingError(path: "headers", reason: "expected an array of \"Name: value\" strings")
            }
            self.headers = headers
        }
        if let value = members["operations"] {
            // A recording carries its documents; it never names a file to read.
            if let index = value.arrayValue?.firstIndex(where: { $0["documentFile"] != nil }) {
                throw DecodingError(path: "operations[\(index)].documentFile", reason: "a recording carries the document itself (\"document\"), not a file name")
            }
            // Operations from --operation are GraphQL documents; their own file format checks them.
            do { operations = try ScenarioCodec.decodeOperations(value, chain: .graphQL(graphQL: [], http: [])) } catch {
                throw DecodingError(path: error.path.isEmpty ? "operations" : error.path, reason: error.reason)
            }
        }
    }

    /// Checks every command against `scenario` before anything runs: launched operations
    /// exist, requests are launched before commands name them, and stops are at hops the
    /// scenario's chain has.
    public func validate(for scenario: Scenario) throws(DecodingError) {
        let hops = scenario.chain.hopCount
        var launched = 0
        for (index, recorded) in commands.enumerated() {
            let path = "commands[\(index)]"
            if case .launch(let operation) = recorded.command {
                guard scenario.operations.indices.contains(operation) else {
                    let count = scenario.operations.count
                    throw DecodingError(path: "\(path).operation", reason: "operation \(operation) does not exist; scenario '\(VisibleEscapes.escape(scenario.name))' has \(count == 1 ? "1 operation" : "\(count) operations") (0-based)")
                }
                launched += 1
            }
            if let request = recorded.command.request, request > launched {
                throw DecodingError(path: "\(path).request", reason: "request #\(request) has not been launched; \(launched == 0 ? "no request was" : launched == 1 ? "only #1 was" : "only #1 to #\(launched) were") launched before this command")
            }
            if case .setBreakRules(let rules) = recorded.command {
                let names = scenario.chain.hops().map(\.name)
                for (ruleIndex, rule) in rules.enumerated() {
                    if let refusal = rule.refusal(hopNames: names) { throw DecodingError(path: "\(path).rules[\(ruleIndex)].rule", reason: refusal) }
                }
            }
            if case .hop(let hop, _) = recorded.place, hop >= hops {
                throw DecodingError(path: "\(path).at.hop", reason: "hop \(hop) does not exist; the chain of '\(VisibleEscapes.escape(scenario.name))' has \(hops) hops (0-based)")
            }
        }
        let passes = launched * scenario.safetyCap * hops
        guard passes <= LabLimits.hopPasses else {
            throw DecodingError(path: "commands", reason: "\(launched) launches × safety cap \(scenario.safetyCap) × \(hops) hops allow \(passes) hop passes; at most \(LabLimits.hopPasses)")
        }
    }

    static func refuseUnknownKeys(_ members: [String: JSONValue], known: [String], path: String) throws(DecodingError) {
        for key in members.keys.sorted() where !known.contains(key) {
            let name = VisibleEscapes.escape(key)
            throw DecodingError(path: path.isEmpty ? name : "\(path).\(name)", reason: "unknown key; known: \(known.joined(separator: ", "))")
        }
    }

    static func encode(_ recorded: RecordedCommand) -> JSONValue {
        var object: [String: JSONValue] = [:]
        func set(_ name: String, request: Int? = nil) {
            object["command"] = .string(name)
            if let request { object["request"] = .number(Double(request)) }
        }
        switch recorded.command {
        case .launch(let operation): set("launch"); object["operation"] = .number(Double(operation))
        case .step(let request, _): set("step", request: request)
        case .resume(let request, _): set("resume", request: request)
        case .resumeAll: set("resumeAll")
        case .pass(let request, _): set("pass", request: request)
        case .editRequestHeaders(let request, let headers, _):
            set("editRequestHeaders", request: request)
            object["headers"] = .array(headers.map { [.string($0.name), .string($0.value)] })
        case .editResponse(let request, let status, let headers, _):
            set("editResponse", request: request)
            if let status { object["status"] = .number(Double(status)) }
            if let headers { object["headers"] = .array(headers.map { [.string($0.name), .string($0.value)] }) }
        case .force401(let request, _): set("force401", request: request)
        case .forceRetry(let request, _): set("forceRetry", request: request)
        case .fail(let request, let fault, _): set("fail", request: request); object["fault"] = .string(fault.rawValue)
        case .delay(let request, let seconds, _): set("delay", request: request); object["seconds"] = .number(seconds)
        case .advanceClock(let seconds): set("advanceClock"); object["seconds"] = .number(seconds)
        case .expireTokens: set("expireTokens")
        case .setBreakRules(let rules):
            set("setBreakRules")
            object["rules"] = .array(rules.map { rule in
                rule.isEnabled ? ["rule": .string(rule.description)] : ["rule": .string(rule.description), "enabled": false]
            })
        }
        if let place = recorded.place { object["at"] = place.json }
        if let lane = recorded.command.lane { object["lane"] = .string(lane.rawValue) }
        return .object(object)
    }

    /// Every command's name and the keys it has besides `command` and `at`.
    static let commandKeys: KeyValuePairs<String, [String]> = [
        "launch": ["operation"], "step": ["request"], "resume": ["request"], "resumeAll": [], "pass": ["request"],
        "editRequestHeaders": ["request", "headers"], "editResponse": ["request", "status", "headers"],
        "force401": ["request"], "forceRetry": ["request"], "fail": ["request", "fault"], "delay": ["request", "seconds"],
        "advanceClock": ["seconds"], "expireTokens": [], "setBreakRules": ["rules"],
    ]

    /// `[{"rule": "post@AuthInterceptor if ~c 401"}, {"rule": "answer", "enabled": false}]`
    static func decodeRules(_ value: JSONValue?, path: String) throws(DecodingError) -> [BreakRule] {
        guard let entries = value?.arrayValue else { throw DecodingError(path: path, reason: "expected an array of {\"rule\": TEXT, \"enabled\": BOOL}") }
        guard entries.count <= BreakRule.maximumCount else { throw DecodingError(path: path, reason: "\(entries.count) rules; at most \(BreakRule.maximumCount)") }
        var rules: [BreakRule] = []
        for (index, entry) in entries.enumerated() {
            let at = "\(path)[\(index)]"
            guard case .object(let members) = entry else { throw DecodingError(path: at, reason: "expected {\"rule\": TEXT, \"enabled\": BOOL}") }
            try refuseUnknownKeys(members, known: ["rule", "enabled"], path: at)
            guard let text = members["rule"]?.stringValue else { throw DecodingError(path: "\(at).rule", reason: "expected a string") }
            var rule: BreakRule
            do { rule = try BreakRule(parsing: text) } catch { throw DecodingError(path: "\(at).rule", reason: "rule \(error)") }
            if let enabled = members["enabled"] {
                guard case .bool(let value) = enabled else { throw DecodingError(path: "\(at).enabled", reason: "expected true or false") }
                rule.isEnabled = value
            }
            rules.append(rule)
        }
        return rules
    }

    static func decode(_ entry: JSONValue, path: String) throws(DecodingError) -> RecordedCommand {
        guard case .object(let members) = entry else { throw DecodingError(path: path, reason: "expected an object such as {\"command\": \"step\", \"request\": 1}") }
        func integer(_ key: String, in range: ClosedRange<Int>) throws(DecodingError) -> Int {
            guard let value = members[key]?.numberValue, value >= Double(range.lowerBound), value <= Double(range.upperBound), value.rounded() == value else {
                throw DecodingError(path: "\(path).\(key)", reason: "expected a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return Int(value)
        }
        func request() throws(DecodingError) -> Int { try integer("request", in: 1...LabLimits.recordedLaunches) }
        func seconds() throws(DecodingError) -> Double {
            guard let value = members["seconds"]?.numberValue, value >= 0, value <= LabLimits.secondsPerClockMove else {
                throw DecodingError(path: "\(path).seconds", reason: "expected a number of seconds from 0 to \(formatNumber(LabLimits.secondsPerClockMove))")
            }
            return value
        }
        func headers() throws(DecodingError) -> HTTPFields {
            guard let pairs = members["headers"]?.arrayValue else { throw DecodingError(path: "\(path).headers", reason: "expected an array of [name, value] pairs") }
            guard pairs.count <= LabLimits.headersPerEdit else {
                throw DecodingError(path: "\(path).headers", reason: "\(pairs.count) headers; an edit may have at most \(LabLimits.headersPerEdit)")
            }
            var fields = HTTPFields()
            for (index, pair) in pairs.enumerated() {
                guard let name = pair[0]?.stringValue, let value = pair[1]?.stringValue, pair.arrayValue?.count == 2 else {
                    throw DecodingError(path: "\(path).headers[\(index)]", reason: "expected [name, value]")
                }
                do { try fields.append(name, value) } catch { throw DecodingError(path: "\(path).headers[\(index)]", reason: error.description) }
            }
            return fields
        }
        guard let name = members["command"]?.stringValue else { throw DecodingError(path: "\(path).command", reason: "expected a string") }
        guard let keys = commandKeys.first(where: { $0.key == name })?.value else {
            throw DecodingError(path: "\(path).command", reason: "unknown \"\(VisibleEscapes.escape(name))\"; known: \(commandKeys.map(\.key).joined(separator: ", "))")
        }
        try refuseUnknownKeys(members, known: ["command"] + keys + ["at"] + (keys.contains("request") ? ["lane"] : []), path: path)
        let command: LabCommand
        switch name {
        case "launch": command = .launch(operation: try integer("operation", in: 0...(LabLimits.operations - 1)))
        case "step": command = .step(request: try request())
        case "resume": command = .resume(request: try request())
        case "resumeAll": command = .resumeAll
        case "pass": command = .pass(request: try request())
        case "editRequestHeaders": command = .editRequestHeaders(request: try request(), headers: try headers())
        case "editResponse":
            command = .editResponse(
                request: try request(), status: members["status"] == nil ? nil : try integer("status", in: 100...599),
                headers: members["headers"] == nil ? nil : try headers())
        case "force401": command = .force401(request: try request())
        case "forceRetry": command = .forceRetry(request: try request())
        case "fail":
            guard let fault = members["fault"]?.stringValue.flatMap(LabFault.init(rawValue:)) else {
                throw DecodingError(path: "\(path).fault", reason: "expected one of \(LabFault.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            command = .fail(request: try request(), fault: fault)
        case "delay": command = .delay(request: try request(), seconds: try seconds())
        case "advanceClock": command = .advanceClock(seconds: try seconds())
        case "setBreakRules": command = .setBreakRules(try decodeRules(members["rules"], path: "\(path).rules"))
        default: command = .expireTokens
        }
        var place: StopPlace?
        if let at = members["at"] {
            guard let named = StopPlace(json: at) else {
                throw DecodingError(path: "\(path).at", reason: "expected \"launch\", \"wake\", \"refresh\" or {\"hop\": N, \"position\": \"pre\"|\"post\"} with N from 0 to \(StopPlace.maximumHopInFiles)")
            }
            place = named
        }
        var lane: Lane?
        if let value = members["lane"] {
            guard let name = value.stringValue, let named = Lane(rawValue: name) else {
                throw DecodingError(path: "\(path).lane", reason: "expected one of \(Lane.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))")
            }
            lane = named
        }
        return RecordedCommand(command: command.inLane(lane), place: place)
    }
}
