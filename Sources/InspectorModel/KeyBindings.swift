public import TerminalUI

/// The keys in force: the standard ``Keymap`` with a person's own bindings laid over it
/// (`"keys"` in the config file). Update, the status line, `?` and `chainlab keys` all read
/// this value, so a rebound key shows everywhere it is described.
///
/// ```swift
/// let keys = try KeyBindings.standard.rebinding([.step: [.char(" ")]])
/// keys.action(for: .char(" "))   // .step
/// keys.action(for: .char("s"))   // nil: step moved to Space
/// ```
public struct KeyBindings: Sendable, Hashable {
    public private(set) var bindings: [KeyBinding]

    public static let standard = KeyBindings(bindings: Keymap.bindings)

    /// The action bound to `key`, if any.
    public func action(for key: Key) -> Action? {
        bindings.first { $0.keys.contains(key) }?.action
    }

    /// The binding of `action`.
    public func binding(_ action: Action) -> KeyBinding {
        bindings.first { $0.action == action }!
    }

    /// The name of the first key of `action`, as hints and notices write it: `s`, `Space`.
    public func keyName(_ action: Action) -> String {
        binding(action).keys.first?.name ?? "?"
    }

    /// These bindings with `keys` replacing the keys of each action named; refused when a
    /// key would then do two things, naming both actions.
    public func rebinding(_ keys: [Action: [Key]]) throws(DoubleBinding) -> KeyBindings {
        var result = self
        for index in result.bindings.indices {
            if let replacement = keys[result.bindings[index].action] { result.bindings[index].keys = replacement }
        }
        var owner: [Key: Action] = [:]
        for binding in result.bindings {
            for key in binding.keys {
                if let first = owner[key], first != binding.action {
                    // Name the action the person rebound second, so the message reads as
                    // "what you asked for clashes with what was there".
                    let (existing, moved) = keys[binding.action] != nil ? (first, binding.action) : (binding.action, first)
                    throw DoubleBinding(key: key, first: existing, second: moved)
                }
                owner[key] = binding.action
            }
        }
        return result
    }

    /// The key table of docs/keys.md, in Markdown: these keys, then each overlay's own.
    public var markdownTable: String {
        func cell(_ keys: [Key]) -> String { keys.map { "`\($0.name == "|" ? "\\|" : $0.name)`" }.joined(separator: " ") }
        var lines = ["| key | action | what it does |", "| --- | --- | --- |"]
        for binding in bindings {
            lines.append("| \(cell(binding.keys)) | \(binding.name) | \(binding.summary) |")
        }
        for overlay in OverlayKeymap.Overlay.allCases {
            lines += ["", "\(overlay.title):", "", "| key | what it does |", "| --- | --- |"]
            for binding in OverlayKeymap.bindings(overlay) {
                lines.append("| \(binding.keys.isEmpty ? "any other key" : cell(binding.keys)) | \(binding.summary) |")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// A key bound to two actions at once.
public struct DoubleBinding: Error, Hashable, Sendable, CustomStringConvertible {
    public var key: Key
    public var first: Action
    public var second: Action

    /// `key` was `first`'s and was bound to `second` too.
    public init(key: Key, first: Action, second: Action) {
        self.key = key
        self.first = first
        self.second = second
    }

    public var description: String {
        "key \(key.name) is bound twice: to \(first.rawValue) and to \(second.rawValue)"
    }
}
