import ChainKit
public import Lab
import TerminalUI
import Vocabulary

/// The config file, `$XDG_CONFIG_HOME/chainlab/config.json` (else
/// `~/.config/chainlab/config.json`): a person's theme, mouse, step mode at start, default
/// export format and keys. Every field is optional; anything unknown or mistyped is refused
/// with its JSON path.
///
/// ```json
/// {"theme": "light", "mouse": false, "ascii": false, "stepMode": true,
///  "exportFormat": "har", "keys": {"step": "space", "continueRequest": ["c", "F5"]}}
/// ```
public struct InspectorConfig: Sendable, Hashable {
    public var theme: Theme?
    public var mouse: Bool?
    public var ascii: Bool?
    public var stepMode: Bool?
    public var exportFormat: ExportFormat?
    /// The standard keys with the file's `"keys"` over them.
    public var keys: KeyBindings = .standard
    /// Headers masked like `Authorization` (`"maskHeaders": ["X-Tenant-Signature"]`), as
    /// `--mask-header` names them.
    public var maskHeaders: [String] = []
    /// Whether operations on a real server carry a W3C `traceparent` (`"traceparent": false`
    /// is `--no-traceparent`); nil: the default, on.
    public var traceparent: Bool?

    public init() {}

    /// The largest config file read, in bytes (1 MiB); a larger one is refused unread.
    public static let maximumBytes = 1 << 20

    static let fields = ["theme", "mouse", "ascii", "stepMode", "exportFormat", "keys", "maskHeaders", "traceparent"]

    /// Where the config file is, from the environment; nil when neither `XDG_CONFIG_HOME`
    /// nor `HOME` is set.
    public static func defaultPath(environment: [String: String]) -> String? {
        if let xdg = environment["XDG_CONFIG_HOME"], !xdg.isEmpty { return xdg + "/chainlab/config.json" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.config/chainlab/config.json" }
        return nil
    }

    /// Reads a config file's text.
    public static func parse(_ text: String) throws(ConfigError) -> InspectorConfig {
        let root: JSONValue
        do { root = try JSONValue(parsing: text, options: JSONParser.Options(rejectsDuplicateKeys: true)) } catch { throw ConfigError(path: "", reason: error.description) }
        guard case .object(let members) = root else { throw ConfigError(path: "", reason: "expected a JSON object at the top") }
        var config = InspectorConfig()
        for name in members.keys.sorted() where !fields.contains(name) {
            throw ConfigError(path: name, reason: "unknown setting; valid: \(fields.joined(separator: ", "))")
        }
        func choice<T: RawRepresentable & CaseIterable>(_ name: String, _: T.Type) throws(ConfigError) -> T? where T.RawValue == String {
            guard let value = members[name] else { return nil }
            let valid = T.allCases.map(\.rawValue).joined(separator: ", ")
            guard case .string(let text) = value, let result = T(rawValue: text) else {
                throw ConfigError(path: name, reason: "expected one of \(valid), got \(value.jsonString)")
            }
            return result
        }
        func flag(_ name: String) throws(ConfigError) -> Bool? {
            guard let value = members[name] else { return nil }
            guard case .bool(let on) = value else { throw ConfigError(path: name, reason: "expected true or false, got \(value.jsonString)") }
            return on
        }
        config.theme = try choice("theme", Theme.self)
        if let value = members["exportFormat"] {
            let offered = ExportFormat.inInspector
            guard case .string(let text) = value, let format = offered.first(where: { $0.id == text }) else {
                throw ConfigError(path: "exportFormat", reason: "expected one of \(offered.map(\.id).joined(separator: ", ")), got \(value.jsonString)")
            }
            config.exportFormat = format
        }
        config.mouse = try flag("mouse")
        config.ascii = try flag("ascii")
        config.stepMode = try flag("stepMode")
        config.traceparent = try flag("traceparent")
        if let keys = members["keys"] { config.keys = try bindings(keys) }
        if let names = members["maskHeaders"] { config.maskHeaders = try headerNames(names) }
        return config
    }

    private static func headerNames(_ value: JSONValue) throws(ConfigError) -> [String] {
        guard case .array(let items) = value else {
            throw ConfigError(path: "maskHeaders", reason: "expected an array of header names, as [\"X-Tenant-Signature\"]")
        }
        var names: [String] = []
        for (index, item) in items.enumerated() {
            guard case .string(let name) = item, (try? HTTPField(name: name, value: "")) != nil else {
                throw ConfigError(path: "maskHeaders[\(index)]", reason: "expected a header name (letters, digits and !#$%&'*+-.^_`|~), got \(item.jsonString)")
            }
            names.append(name)
        }
        return names
    }

    private static func bindings(_ value: JSONValue) throws(ConfigError) -> KeyBindings {
        guard case .object(let members) = value else {
            throw ConfigError(path: "keys", reason: "expected an object of action names and keys, as {\"step\": \"space\"}")
        }
        var rebound: [Action: [Key]] = [:]
        for name in members.keys.sorted() {
            let path = "keys.\(name)"
            guard let action = Action(rawValue: name) else {
                throw ConfigError(path: path, reason: "no such action; valid: \(Action.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            let names: [JSONValue] = switch members[name]! {
            case .string: [members[name]!]
            case .array(let items): items
            default: []
            }
            guard !names.isEmpty else { throw ConfigError(path: path, reason: "expected a key name or a non-empty array of them, got \(members[name]!.jsonString)") }
            var keys: [Key] = []
            for (index, item) in names.enumerated() {
                let itemPath = names.count == 1 && members[name]!.stringValue != nil ? path : "\(path)[\(index)]"
                guard case .string(let text) = item, let key = Key(name: text) else {
                    throw ConfigError(path: itemPath, reason: "\(item.jsonString) is not a key; write one character (s, ?), or Space, Enter, Esc, Tab, Shift-Tab, Up, Down, Left, Right, PgUp, PgDn, Home, End, Backspace, Delete, Ctrl-A to Ctrl-Z but for Ctrl-C, H, I, J, M, Q, S and Z, F1 to F63")
                }
                if let reason = unusable(key, for: action) { throw ConfigError(path: itemPath, reason: reason) }
                if !keys.contains(key) { keys.append(key) }
            }
            if action == .quit, !keys.contains(.char("q")) { keys.insert(.char("q"), at: 0) }
            rebound[action] = keys
        }
        do {
            return try KeyBindings.standard.rebinding(rebound)
        } catch {
            throw ConfigError(path: "keys.\(error.second.rawValue)", reason: error.description)
        }
    }
}

extension InspectorConfig {
    /// Why `key` cannot be bound to `action`, or nil when it can: keys a terminal never hands
    /// over as themselves, `q` (which always quits, as Ctrl-C does) and characters that do not
    /// show as themselves in a key table.
    static func unusable(_ key: Key, for action: Action) -> String? {
        switch key {
        case .ctrl("i"): return "Ctrl-I arrives as Tab (terminals send the same byte); bind Tab instead"
        case .ctrl("m"), .ctrl("j"): return "\(key.name) arrives as Enter (terminals send the same byte); bind Enter instead"
        case .ctrl("h"): return "Ctrl-H arrives as Backspace (terminals send the same byte); bind Backspace instead"
        case .ctrl("c"): return "Ctrl-C always quits: the terminal turns it into an interrupt, never a key"
        case .ctrl("z"): return "Ctrl-Z suspends the program in the terminal; it never arrives as a key"
        case .ctrl("s"), .ctrl("q"): return "the terminal keeps Ctrl-S and Ctrl-Q for flow control; they never arrive as keys"
        case .char("q") where action != .quit: return "q always quits; choose another key"
        case .char(let character):
            guard let hidden = character.unicodeScalars.first(where: { !Self.showsAsItself($0) }) else { return nil }
            return "\(VisibleEscapes.escaped(hidden)) does not show as itself (an invisible, zero-width, bidirectional or combining character); choose a visible key"
        default: return nil
        }
    }

    private static func showsAsItself(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .format, .lineSeparator, .paragraphSeparator, .nonspacingMark, .enclosingMark, .spacingMark,
            .control, .privateUse, .surrogate, .unassigned:
            false
        case .spaceSeparator: scalar == " "
        default: true
        }
    }
}

/// Why the config file was refused: the JSON path of the mistake and what is valid there.
public struct ConfigError: Error, Hashable, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { path.isEmpty ? reason : "\(path): \(reason)" }
}
