import Scheduling
import Backend
import Instrumentation
package import ChainKit
public import Foundation
import Vocabulary

/// Why a scenario file was refused: the JSON path of the problem and what is valid there.
///
/// ```
/// chain[2].interceptor: unknown "Foo"; known: MaxRetryInterceptor, AuthInterceptor, …
/// ```
public struct ScenarioError: Error, Sendable, Hashable, CustomStringConvertible {
    public let path: String
    public let reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { path.isEmpty ? reason : "\(path): \(reason)" }
}

/// Reads and writes scenarios as JSON. Built-in scenarios use the same format, so
/// `chainlab scenarios --show NAME` output loads back unchanged.
///
/// ```json
/// {
///   "name": "my-scenario",
///   "summary": "One line.",
///   "teaches": "What it shows.",
///   "onScreen": "What to look for in the inspector (optional).",
///   "chain": [{"interceptor": "MaxRetryInterceptor", "maxRetries": 3},
///             {"interceptor": "AuthInterceptor"},
///             {"interceptor": "ResponseCodeInterceptor"}],
///   "backend": {"tokenTTL": 300, "authFailureMode": "status401", "latency": 0.012},
///   "token": "expired",
///   "refreshStrategy": "singleFlight",
///   "operations": [{"name": "HeroQuery", "fetchBehavior": "CacheFirst"}],
///   "launch": [0, 0],
///   "script": [{"request": 1, "until": "refresh"}, 2]
/// }
/// ```
public enum ScenarioCodec {
    static let topLevelKeys = ["name", "summary", "teaches", "onScreen", "chain", "backend", "token", "refreshStrategy", "operations", "launch", "script", "prefillCache", "safetyCap", "breakpoints"]
    static let backendKeys = ["tokenTTL", "authFailureMode", "requireAuth", "rotateRefreshTokens", "reuseDetection", "serverErrorStatus", "failNext", "failNextStatus", "latency", "hostile", "omitsHeroName"]
    static let operationKeys = ["name", "fetchBehavior", "watch", "autoPersistQueries", "useGETForQueries", "useGETForPersistedQueryRetry", "variables", "clientAwareness", "writeResultsToCache", "method", "path", "document", "documentFile", "body"]
    static let clientAwarenessKeys = ["name", "version", "library"]
    static let graphQLOperationNames = ["HeroQuery", "HeroDetailsQuery", "RenameHero", "HeroDeferQuery", "HeroNameChanged"]

    // MARK: - Encoding

    /// The scenario as JSON text, with keys in a fixed order.
    public static func encode(_ scenario: Scenario) -> String {
        var members: [(String, JSONValue)] = [
            ("name", .string(scenario.name)),
            ("summary", .string(scenario.summary)),
            ("teaches", .string(scenario.teaches)),
        ]
        if let onScreen = scenario.onScreen { members.append(("onScreen", .string(onScreen))) }
        switch scenario.chain {
        case .graphQL(let graphQL, let http):
            members.append(("chain", .array((graphQL + http).map { layer(key: "interceptor", $0) })))
        case .middleware(let layers):
            members.append(("chain", .array(layers.map { layer(key: "middleware", $0) })))
        }
        let backend = scenario.backend
        var backendMembers: [String: JSONValue] = [
            "tokenTTL": .number(backend.tokenTTL), "authFailureMode": .string(backend.authFailureMode.rawValue),
            "requireAuth": .bool(backend.requireAuth), "rotateRefreshTokens": .bool(backend.rotateRefreshTokens),
            "reuseDetection": .bool(backend.reuseDetection), "failNext": .number(Double(backend.failNext)),
            "failNextStatus": .number(Double(backend.failNextStatus)), "latency": .number(backend.latency), "hostile": .bool(backend.hostile),
        ]
        if case .always(let status) = backend.serverErrorMode { backendMembers["serverErrorStatus"] = .number(Double(status)) }
        if backend.omitsHeroName { backendMembers["omitsHeroName"] = .bool(true) }
        members.append(("backend", .object(backendMembers)))
        members.append(("token", .string(scenario.token.rawValue)))
        members.append(("refreshStrategy", .string(scenario.refreshStrategy.rawValue)))
        members.append(("operations", .array(scenario.operations.map(operation))))
        members.append(("launch", .array(scenario.launch.map { .number(Double($0)) })))
        members.append(("script", .array(scenario.script.map(scriptStep))))
        members.append(("prefillCache", .bool(scenario.prefillCache)))
        members.append(("safetyCap", .number(Double(scenario.safetyCap))))
        if !scenario.breakpoints.isEmpty {
            members.append(("breakpoints", .array(scenario.breakpoints.map { .string($0.description) })))
        }
        let lines = members.map { "  " + JSONValue.string($0.0).jsonString + ": " + $0.1.jsonString }
        return "{\n" + lines.joined(separator: ",\n") + "\n}\n"
    }

    static func layer(key: String, _ layer: Scenario.Layer) -> JSONValue {
        var object = layer.settings
        object[key] = .string(layer.name)
        return .object(object)
    }

    package static func operation(_ operation: Scenario.Operation) -> JSONValue {
        var object: [String: JSONValue] = ["name": .string(operation.name)]
        if let behavior = operation.fetchBehavior { object["fetchBehavior"] = .string(behavior.description) }
        if !operation.writeResultsToCache { object["writeResultsToCache"] = false }
        if operation.watch { object["watch"] = true }
        if operation.autoPersistQueries { object["autoPersistQueries"] = true }
        if operation.useGETForQueries { object["useGETForQueries"] = true }
        if operation.useGETForPersistedQueryRetry { object["useGETForPersistedQueryRetry"] = true }
        if let variables = operation.variables { object["variables"] = .object(variables) }
        if let awareness = operation.clientAwareness {
            var members: [String: JSONValue] = ["library": .bool(awareness.includeApolloLibraryAwareness)]
            if let name = awareness.clientApplicationName { members["name"] = .string(name) }
            if let version = awareness.clientApplicationVersion { members["version"] = .string(version) }
            object["clientAwareness"] = .object(members)
        }
        if let method = operation.method { object["method"] = .string(method) }
        if let path = operation.path { object["path"] = .string(path) }
        if let document = operation.document { object["document"] = .string(document) }
        if let body = operation.body { object["body"] = body }
        return .object(object)
    }

    static func scriptStep(_ step: Scenario.ScriptStep) -> JSONValue {
        guard let until = step.until else { return .number(Double(step.request)) }
        return ["request": .number(Double(step.request)), "until": until.json]
    }

    // MARK: - Decoding

    /// Reads a scenario, refusing anything unknown, mistyped or impossible with the JSON path
    /// of the problem and the valid choices.
    /// - Parameter directory: where a `documentFile` is looked for (the scenario file's
    ///   folder); nil: the current directory.
    public static func decode(_ data: Data, relativeTo directory: URL? = nil) throws(ScenarioError) -> Scenario {
        guard data.count <= LabLimits.scenarioFileBytes else {
            throw ScenarioError(path: "", reason: "the file has \(data.count) bytes; a scenario file may have at most \(LabLimits.scenarioFileBytes)")
        }
        let root: JSONValue
        do { root = try JSONValue(parsing: data, options: LabLimits.fileParsing) } catch { throw ScenarioError(path: "", reason: error.description) }
        guard case .object(let members) = root else { throw ScenarioError(path: "", reason: "expected a JSON object at the top") }
        try refuseUnknownKeys(members, known: topLevelKeys, path: "")
        let reader = Reader(members: members, path: "")
        let name = try reader.string("name")
        guard !name.isEmpty, name.unicodeScalars.allSatisfy({ !VisibleEscapes.isUnsafe($0) }) else {
            throw ScenarioError(path: "name", reason: "must be a non-empty name without control characters")
        }
        let chain = try decodeChain(members["chain"])
        let operations = try decodeOperations(members["operations"], chain: chain, directory: directory)
        let launch = try reader.optionalIntegers("launch", minimum: 0, maximum: LabLimits.operations - 1, count: LabLimits.launches) ?? [0]
        for (index, operation) in launch.enumerated() where operation >= operations.count {
            throw ScenarioError(path: "launch[\(index)]", reason: "operation \(operation) does not exist; there \(operations.count == 1 ? "is 1 operation" : "are \(operations.count) operations") (0-based)")
        }
        let token = try reader.optionalEnum("token", Scenario.InitialToken.self) ?? .valid
        let strategy = try reader.optionalEnum("refreshStrategy", RefreshStrategy.self) ?? .singleFlight
        let safetyCap = try reader.optionalInteger("safetyCap", minimum: 1, maximum: LabLimits.safetyCap) ?? 20
        let passes = launch.count * safetyCap * chain.hopCount
        guard passes <= LabLimits.hopPasses else {
            throw ScenarioError(path: "safetyCap", reason: "\(launch.count) launches × safety cap \(safetyCap) × \(chain.hopCount) hops allow \(passes) hop passes; at most \(LabLimits.hopPasses): lower the safety cap, launch fewer operations or shorten the chain")
        }
        var scenario = Scenario(
            name: name, summary: try reader.optionalString("summary") ?? "", teaches: try reader.optionalString("teaches") ?? "",
            chain: chain, operations: operations)
        scenario.backend = try decodeBackend(members["backend"])
        scenario.token = token
        scenario.refreshStrategy = strategy
        scenario.launch = launch
        scenario.script = try decodeScript(members["script"])
        scenario.prefillCache = try reader.optionalBool("prefillCache") ?? false
        scenario.safetyCap = safetyCap
        scenario.breakpoints = try decodeBreakpoints(members["breakpoints"], chain: chain)
        scenario.onScreen = try reader.optionalString("onScreen")
        return scenario
    }

    /// `"breakpoints": ["post@AuthInterceptor if ~c 401", "answer"]`: rules in ``BreakRule``'s
    /// syntax, each naming hops the chain has.
    static func decodeBreakpoints(_ value: JSONValue?, chain: Scenario.Chain) throws(ScenarioError) -> [BreakRule] {
        guard let value else { return [] }
        guard let entries = value.arrayValue else {
            throw ScenarioError(path: "breakpoints", reason: "expected an array of rules such as \"post@AuthInterceptor if ~c 401\"")
        }
        guard entries.count <= BreakRule.maximumCount else {
            throw ScenarioError(path: "breakpoints", reason: "\(entries.count) rules; at most \(BreakRule.maximumCount)")
        }
        let hopNames = chain.hops().map(\.name)
        var rules: [BreakRule] = []
        for (index, entry) in entries.enumerated() {
            let path = "breakpoints[\(index)]"
            guard let text = entry.stringValue else { throw ScenarioError(path: path, reason: "expected a rule such as \"post@AuthInterceptor if ~c 401\"") }
            let rule: BreakRule
            do { rule = try BreakRule(parsing: text) } catch { throw ScenarioError(path: path, reason: "rule \(error)") }
            if let refusal = rule.refusal(hopNames: hopNames) { throw ScenarioError(path: path, reason: refusal) }
            rules.append(rule)
        }
        return rules
    }

    static func refuseUnknownKeys(_ members: [String: JSONValue], known: [String], path: String) throws(ScenarioError) {
        for key in members.keys.sorted() where !known.contains(key) {
            let name = VisibleEscapes.escape(key)
            throw ScenarioError(path: path.isEmpty ? name : "\(path).\(name)", reason: "unknown key; known: \(known.joined(separator: ", "))")
        }
    }

    static func decodeChain(_ value: JSONValue?) throws(ScenarioError) -> Scenario.Chain {
        guard let value else { throw ScenarioError(path: "chain", reason: "missing; a chain is an array of {\"interceptor\": NAME} or {\"middleware\": NAME}") }
        guard let entries = value.arrayValue else { throw ScenarioError(path: "chain", reason: "expected an array of layers") }
        guard entries.count <= LabLimits.chainLength else {
            throw ScenarioError(path: "chain", reason: "\(entries.count) layers; a chain may have at most \(LabLimits.chainLength)")
        }
        var graphQL: [Scenario.Layer] = [], http: [Scenario.Layer] = [], middlewares: [Scenario.Layer] = []
        for (index, entry) in entries.enumerated() {
            let path = "chain[\(index)]"
            guard case .object(var object) = entry else { throw ScenarioError(path: path, reason: "expected an object such as {\"interceptor\": \"MaxRetryInterceptor\"}") }
            let key = object["interceptor"] != nil ? "interceptor" : "middleware"
            guard let name = object[key]?.stringValue else {
                throw ScenarioError(path: "\(path).interceptor", reason: "expected a string naming an interceptor (or \"middleware\" naming a middleware)")
            }
            object[key] = nil
            let places: [LayerRegistry.Place] = key == "interceptor" ? [.graphQL, .http] : [.middleware]
            guard let definition = LayerRegistry.definition(named: name), places.contains(definition.place) else {
                let known = places.flatMap(LayerRegistry.names(for:))
                throw ScenarioError(path: "\(path).\(key)", reason: "unknown \"\(VisibleEscapes.escape(name))\"; known: \(known.joined(separator: ", "))")
            }
            try refuseUnknownKeys(object, known: [key] + definition.settings.keys.sorted(), path: path)
            for (setting, type) in definition.settings.sorted(by: { $0.key < $1.key }) {
                if let value = object[setting] { try check(value, is: type, path: "\(path).\(setting)") }
            }
            if name == "StaticAuthInterceptor" || (name == "AuthenticationMiddleware" && object["authorization"] != nil) {
                let value = object["authorization"]?.stringValue ?? ""
                do { try HTTPField.validate(value: value, forName: "Authorization") } catch {
                    throw ScenarioError(path: "\(path).authorization", reason: error.description)
                }
            }
            let layer = Scenario.Layer(name, object)
            switch definition.place {
            case .graphQL:
                guard http.isEmpty else {
                    throw ScenarioError(path: "\(path).interceptor", reason: "\(name) is a GraphQL interceptor and must come before the HTTP interceptors (\(http.map(\.name).joined(separator: ", "))): the cache step sits between them")
                }
                graphQL.append(layer)
            case .http: http.append(layer)
            case .middleware: middlewares.append(layer)
            }
        }
        if !middlewares.isEmpty {
            guard graphQL.isEmpty && http.isEmpty else { throw ScenarioError(path: "chain", reason: "a chain is either GraphQL interceptors or middlewares, not both") }
            return .middleware(middlewares)
        }
        return .graphQL(graphQL: graphQL, http: http)
    }

    static func check(_ value: JSONValue, is type: LayerRegistry.SettingType, path: String) throws(ScenarioError) {
        let valid: Bool
        switch type {
        case .nonNegativeInteger: valid = value.numberValue.map { $0 >= 0 && $0.rounded() == $0 && $0 <= 1_000_000 } ?? false
        case .positiveInteger: valid = value.numberValue.map { $0 >= 1 && $0.rounded() == $0 && $0 <= 1_000_000 } ?? false
        case .nonNegativeNumber: valid = value.numberValue.map { $0 >= 0 && $0 <= 86_400 } ?? false
        case .boolean: if case .bool = value { valid = true } else { valid = false }
        case .string: valid = value.stringValue != nil
        case .statusList: valid = value.arrayValue.map { $0.count <= 500 && $0.allSatisfy(isStatusCode) } ?? false
        case .statusCode: valid = isStatusCode(value)
        }
        guard valid else { throw ScenarioError(path: path, reason: "expected \(type.rawValue), got \(VisibleEscapes.escape(value.jsonString))") }
    }

    static func isStatusCode(_ value: JSONValue) -> Bool {
        value.numberValue.map { (100...599).contains($0) && $0.rounded() == $0 } ?? false
    }

    /// The names an `ApolloClient` app gives its cache policies, and the fetch behaviour each
    /// maps to (apollo-ios 2.4 `Sources/Apollo/Caching/CachePolicy.swift` and the deprecated
    /// `CachePolicy_v1` in `Sources/Apollo/ApolloClient.swift`), so a scenario file can say
    /// what the app says. `fetchIgnoringCacheCompletely` also leaves the cache unwritten.
    static let cachePolicies: [(name: String, behavior: FetchBehavior, writesToCache: Bool)] = [
        ("cacheFirst", .CacheFirst, true), ("networkFirst", .NetworkFirst, true), ("networkOnly", .NetworkOnly, true),
        ("cacheOnly", .CacheOnly, true), ("cacheAndNetwork", .CacheAndNetwork, true), ("cacheThenNetwork", .CacheAndNetwork, true),
        ("returnCacheDataElseFetch", .CacheFirst, true), ("fetchIgnoringCacheData", .NetworkOnly, true),
        ("fetchIgnoringCacheCompletely", .NetworkOnly, false), ("returnCacheDataDontFetch", .CacheOnly, true),
        ("returnCacheDataAndFetch", .CacheAndNetwork, true),
    ]

    /// A fetch behaviour by its own name (`CacheFirst`) or by an app's cache policy name.
    static func cachePolicy(named text: String) -> (behavior: FetchBehavior, writesToCache: Bool)? {
        if let named = FetchBehavior.named.first(where: { $0.name == text }) { return (named.behavior, true) }
        return cachePolicies.first { $0.name == text }.map { ($0.behavior, $0.writesToCache) }
    }

    static func decodeBackend(_ value: JSONValue?) throws(ScenarioError) -> LabBackend.Settings {
        guard let value else { return LabBackend.Settings() }
        guard case .object(let members) = value else { throw ScenarioError(path: "backend", reason: "expected an object") }
        try refuseUnknownKeys(members, known: backendKeys, path: "backend")
        let reader = Reader(members: members, path: "backend")
        var settings = LabBackend.Settings()
        if let ttl = try reader.optionalNumber("tokenTTL", minimum: 0) { settings.tokenTTL = ttl }
        if let mode = try reader.optionalEnum("authFailureMode", LabBackend.AuthFailureMode.self) { settings.authFailureMode = mode }
        if let flag = try reader.optionalBool("requireAuth") { settings.requireAuth = flag }
        if let flag = try reader.optionalBool("rotateRefreshTokens") { settings.rotateRefreshTokens = flag }
        if let flag = try reader.optionalBool("reuseDetection") { settings.reuseDetection = flag }
        if let status = try reader.optionalInteger("serverErrorStatus", minimum: 500, maximum: 599) { settings.serverErrorMode = .always(status: status) }
        if let count = try reader.optionalInteger("failNext", minimum: 0, maximum: 10_000) { settings.failNext = count }
        if let status = try reader.optionalInteger("failNextStatus", minimum: 500, maximum: 599) { settings.failNextStatus = status }
        if let latency = try reader.optionalNumber("latency", minimum: 0, maximum: 60) { settings.latency = latency }
        if let flag = try reader.optionalBool("hostile") { settings.hostile = flag }
        if let flag = try reader.optionalBool("omitsHeroName") { settings.omitsHeroName = flag }
        return settings
    }

    package static func decodeOperations(_ value: JSONValue?, chain: Scenario.Chain, directory: URL? = nil) throws(ScenarioError) -> [Scenario.Operation] {
        guard let entries = value?.arrayValue, !entries.isEmpty else {
            throw ScenarioError(path: "operations", reason: "expected a non-empty array of operations such as {\"name\": \"HeroQuery\"}")
        }
        guard entries.count <= LabLimits.operations else {
            throw ScenarioError(path: "operations", reason: "\(entries.count) operations; a scenario may have at most \(LabLimits.operations)")
        }
        var operations: [Scenario.Operation] = []
        for (index, entry) in entries.enumerated() {
            let path = "operations[\(index)]"
            guard case .object(let members) = entry else { throw ScenarioError(path: path, reason: "expected an object") }
            try refuseUnknownKeys(members, known: operationKeys, path: path)
            let reader = Reader(members: members, path: path)
            let name = try reader.string("name")
            if let variables = members["variables"], variables.objectValue == nil {
                throw ScenarioError(path: "\(path).variables", reason: "expected an object of variables such as {\"id\": \"2001\"}, got \(VisibleEscapes.escape(variables.jsonString))")
            }
            var operation = Scenario.Operation(name: name)
            if let text = try reader.optionalString("fetchBehavior") {
                guard let policy = cachePolicy(named: text) else {
                    throw ScenarioError(
                        path: "\(path).fetchBehavior",
                        reason: "unknown \"\(VisibleEscapes.escape(text))\"; known: \(FetchBehavior.named.map(\.name).joined(separator: ", ")), or an ApolloClient cache policy: \(cachePolicies.map(\.name).joined(separator: ", "))")
                }
                operation.fetchBehavior = policy.behavior
                operation.writeResultsToCache = policy.writesToCache
            }
            if let writes = try reader.optionalBool("writeResultsToCache") { operation.writeResultsToCache = writes }
            operation.watch = try reader.optionalBool("watch") ?? false
            operation.autoPersistQueries = try reader.optionalBool("autoPersistQueries") ?? false
            operation.useGETForQueries = try reader.optionalBool("useGETForQueries") ?? false
            operation.useGETForPersistedQueryRetry = try reader.optionalBool("useGETForPersistedQueryRetry") ?? false
            operation.variables = members["variables"]?.objectValue
            operation.clientAwareness = try clientAwareness(members["clientAwareness"], path: "\(path).clientAwareness")
            operation.method = try reader.optionalString("method")
            operation.path = try reader.optionalString("path")
            if let variables = members["variables"], variables.objectValue == nil {
                throw ScenarioError(path: "\(path).variables", reason: "expected a JSON object such as {\"id\": \"2001\"}, got \(VisibleEscapes.escape(variables.jsonString))")
            }
            switch chain {
            case .graphQL:
                if let source = try documentSource(reader, directory: directory) {
                    let document: GraphQLDocument
                    do { document = try GraphQLDocument(text: source.text) } catch {
                        throw ScenarioError(path: source.path, reason: "not a GraphQL document: \(error.description)")
                    }
                    let chosen: (operation: GraphQLDocument.Operation, name: String)
                    do { chosen = try document.namedOperation(document.operations.count == 1 ? nil : name) } catch {
                        throw ScenarioError(path: "\(path).name", reason: error.description)
                    }
                    operation.document = document.document(of: chosen.operation)
                    operation.kind = chosen.operation.kind
                    operation.name = chosen.name
                    try refuseWatching(operation, path: path)
                    operations.append(operation)
                    continue
                }
                guard graphQLOperationNames.contains(name) else {
                    throw ScenarioError(path: "\(path).name", reason: "unknown operation \"\(VisibleEscapes.escape(name))\"; the lab backend serves: \(graphQLOperationNames.joined(separator: ", "))")
                }
                try refuseWatching(operation, path: path)
            case .middleware:
                operation.method = operation.method ?? "GET"
                guard let requestPath = operation.path, requestPath.hasPrefix("/"), requestPath.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
                    throw ScenarioError(path: "\(path).path", reason: "a middleware operation needs a path starting with \"/\" without spaces or control characters, e.g. \"/heroes/2001\"")
                }
                do { try HTTPField.validate(name: operation.method!) } catch {
                    throw ScenarioError(path: "\(path).method", reason: "\"\(VisibleEscapes.escape(operation.method!))\" is not an HTTP method token")
                }
                operation.body = members["body"]
                if operation.watch {
                    throw ScenarioError(path: "\(path).watch", reason: "a middleware operation cannot be watched: a watcher follows the GraphQL cache")
                }
                if members["document"] != nil || members["documentFile"] != nil {
                    throw ScenarioError(path: path, reason: "a middleware operation is REST: give method, path and body, not a GraphQL document")
                }
            }
            operations.append(operation)
        }
        return operations
    }

    /// A watched operation must be a query, as upstream's `GraphQLQueryWatcher<Query: GraphQLQuery>`.
    static func refuseWatching(_ operation: Scenario.Operation, path: String) throws(ScenarioError) {
        let kind = operation.graphQLOperation.kind
        guard operation.watch, kind != .query else { return }
        throw ScenarioError(path: "\(path).watch", reason: "only a query can be watched; \(VisibleEscapes.escape(operation.name)) is a \(kind.rawValue)")
    }

    /// The text of an operation's `document`, or of the file its `documentFile` names
    /// (relative to `directory`), with the path to blame; nil when it has neither.
    static func documentSource(_ reader: Reader, directory: URL?) throws(ScenarioError) -> (text: String, path: String)? {
        let inline = try reader.optionalString("document")
        let file = try reader.optionalString("documentFile")
        switch (inline, file) {
        case (.some, .some):
            throw ScenarioError(path: reader.at("documentFile"), reason: "give \"document\" or \"documentFile\", not both")
        case (.some(let text), nil):
            return (text, reader.at("document"))
        case (nil, .some(let name)):
            let url = name.hasPrefix("/") ? URL(fileURLWithPath: name) : (directory ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)).appendingPathComponent(name)
            let data: Data
            do {
                data = try BoundedFile.read(url.path, limit: maxDocumentBytes)
            } catch {
                throw ScenarioError(path: reader.at("documentFile"), reason: "cannot read \(VisibleEscapes.escape(url.path)): \(error.reason(purpose: "document file", limit: maxDocumentBytes))")
            }
            guard let text = String(data: data, encoding: .utf8) else {
                throw ScenarioError(path: reader.at("documentFile"), reason: "\(VisibleEscapes.escape(url.path)) is not UTF-8 text")
            }
            return (text, reader.at("documentFile"))
        case (nil, nil):
            return nil
        }
    }

    /// The largest GraphQL document a scenario may name: 1 MiB.
    public static let maxDocumentBytes = 1 << 20

    static func decodeScript(_ value: JSONValue?) throws(ScenarioError) -> [Scenario.ScriptStep] {
        guard let value else { return [] }
        guard let entries = value.arrayValue else { throw ScenarioError(path: "script", reason: "expected an array of request ids or {\"request\": N, \"until\": STOP}") }
        guard entries.count <= LabLimits.scriptSteps else {
            throw ScenarioError(path: "script", reason: "\(entries.count) steps; a script may have at most \(LabLimits.scriptSteps)")
        }
        var steps: [Scenario.ScriptStep] = []
        for (index, entry) in entries.enumerated() {
            let path = "script[\(index)]"
            if let number = entry.numberValue {
                guard number >= 1, number <= Double(LabLimits.launches), number.rounded() == number else {
                    throw ScenarioError(path: path, reason: "expected a request id from 1 to \(LabLimits.launches)")
                }
                steps.append(Scenario.ScriptStep(request: Int(number)))
                continue
            }
            guard case .object(let members) = entry else { throw ScenarioError(path: path, reason: "expected a request id or {\"request\": N, \"until\": STOP}") }
            try refuseUnknownKeys(members, known: ["request", "until"], path: path)
            let request = try Reader(members: members, path: path).integer("request", minimum: 1, maximum: LabLimits.launches)
            var until: StopPlace?
            if let stop = members["until"] {
                guard let place = StopPlace(json: stop) else {
                    throw ScenarioError(path: "\(path).until", reason: "expected \"refresh\" or {\"hop\": N, \"position\": \"pre\"|\"post\"}")
                }
                until = place
            }
            steps.append(Scenario.ScriptStep(request: request, until: until))
        }
        return steps
    }

    /// Typed access to an object's members with errors that name the path.
    /// `{"name", "version", "library"}`: the client-awareness headers (valid header values)
    /// and whether the body names the library (default true).
    static func clientAwareness(_ value: JSONValue?, path: String) throws(ScenarioError) -> ClientAwarenessMetadata? {
        guard let value else { return nil }
        guard case .object(let members) = value else { throw ScenarioError(path: path, reason: "expected an object") }
        try refuseUnknownKeys(members, known: clientAwarenessKeys, path: path)
        let reader = Reader(members: members, path: path)
        let name = try reader.optionalString("name"), version = try reader.optionalString("version")
        for (key, header, text) in [("name", "apollographql-client-name", name), ("version", "apollographql-client-version", version)] {
            guard let text else { continue }
            do {
                try HTTPField.validate(value: text, forName: header)
            } catch {
                throw ScenarioError(path: reader.at(key), reason: error.description)
            }
        }
        return ClientAwarenessMetadata(
            clientApplicationName: name, clientApplicationVersion: version,
            includeApolloLibraryAwareness: try reader.optionalBool("library") ?? true)
    }

    struct Reader {
        let members: [String: JSONValue]
        let path: String

        func at(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

        func string(_ key: String) throws(ScenarioError) -> String {
            guard let value = members[key] else { throw ScenarioError(path: at(key), reason: "missing; expected a string") }
            guard let text = value.stringValue else { throw ScenarioError(path: at(key), reason: "expected a string, got \(VisibleEscapes.escape(value.jsonString))") }
            return text
        }

        func optionalString(_ key: String) throws(ScenarioError) -> String? {
            guard members[key] != nil else { return nil }
            return try string(key)
        }

        func optionalBool(_ key: String) throws(ScenarioError) -> Bool? {
            guard let value = members[key] else { return nil }
            guard case .bool(let flag) = value else { throw ScenarioError(path: at(key), reason: "expected true or false, got \(VisibleEscapes.escape(value.jsonString))") }
            return flag
        }

        func integer(_ key: String, minimum: Int, maximum: Int = 1_000_000) throws(ScenarioError) -> Int {
            guard let value = members[key] else { throw ScenarioError(path: at(key), reason: "missing; expected a whole number") }
            guard let number = value.numberValue, number.rounded() == number, number >= Double(minimum), number <= Double(maximum) else {
                throw ScenarioError(path: at(key), reason: "expected a whole number from \(minimum) to \(maximum), got \(VisibleEscapes.escape(value.jsonString))")
            }
            return Int(number)
        }

        func optionalInteger(_ key: String, minimum: Int, maximum: Int = 1_000_000) throws(ScenarioError) -> Int? {
            guard members[key] != nil else { return nil }
            return try integer(key, minimum: minimum, maximum: maximum)
        }

        func optionalNumber(_ key: String, minimum: Double, maximum: Double = 1e9) throws(ScenarioError) -> Double? {
            guard let value = members[key] else { return nil }
            guard let number = value.numberValue, number >= minimum, number <= maximum else {
                throw ScenarioError(path: at(key), reason: "expected a number from \(formatNumber(minimum)) to \(formatNumber(maximum)), got \(VisibleEscapes.escape(value.jsonString))")
            }
            return number
        }

        func optionalIntegers(_ key: String, minimum: Int, maximum: Int, count: Int) throws(ScenarioError) -> [Int]? {
            guard let value = members[key] else { return nil }
            guard let entries = value.arrayValue else { throw ScenarioError(path: at(key), reason: "expected an array of whole numbers") }
            guard entries.count <= count else { throw ScenarioError(path: at(key), reason: "\(entries.count) entries; at most \(count)") }
            var numbers: [Int] = []
            for (index, entry) in entries.enumerated() {
                guard let number = entry.numberValue, number.rounded() == number, number >= Double(minimum), number <= Double(maximum) else {
                    throw ScenarioError(path: "\(at(key))[\(index)]", reason: "expected a whole number from \(minimum) to \(maximum), got \(VisibleEscapes.escape(entry.jsonString))")
                }
                numbers.append(Int(number))
            }
            return numbers
        }

        func optionalEnum<Value: RawRepresentable & CaseIterable>(_ key: String, _ type: Value.Type) throws(ScenarioError) -> Value? where Value.RawValue == String {
            guard let text = try optionalString(key) else { return nil }
            guard let value = Value(rawValue: text) else {
                throw ScenarioError(path: at(key), reason: "unknown \"\(VisibleEscapes.escape(text))\"; known: \(Value.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return value
        }
    }
}
