import Vocabulary

/// One option a command takes: its names (the first is the one messages list), whether a
/// value follows it, whether it may be given more than once, and what it does to the
/// command's settings.
struct CommandOption<Settings> {
    let names: [String]
    let takesValue: Bool
    let repeatable: Bool
    let apply: (inout Settings, String) throws -> Void

    /// An option followed by a value, such as `--format json`.
    static func value(_ names: String..., repeatable: Bool = false, apply: @escaping (inout Settings, String) throws -> Void) -> Self {
        Self(names: names, takesValue: true, repeatable: repeatable, apply: apply)
    }

    /// An option on its own, such as `--ascii`.
    static func flag(_ names: String..., apply: @escaping (inout Settings) -> Void) -> Self {
        Self(names: names, takesValue: false, repeatable: false) { settings, _ in apply(&settings) }
    }

    /// This option working on the part of a larger command's settings at `part`, so that
    /// options several commands share (``EndpointOptions``, ``OTLPOptions``) are written once.
    func on<Whole>(_ part: WritableKeyPath<Whole, Settings>) -> CommandOption<Whole> {
        let apply = self.apply
        return CommandOption<Whole>(names: names, takesValue: takesValue, repeatable: repeatable) { whole, value in
            try apply(&whole[keyPath: part], value)
        }
    }
}

/// Reads a command's arguments front to back against its table of options; every command
/// of chainlab parses through it, so each refusal reads the same way everywhere:
///
/// - an option not in the table: `unknown option '--bogus' for trace; valid: --format, …`;
/// - an option without its value: `--format needs a value; see 'chainlab trace --help'`
///   (the inspector's: `'chainlab --help-inspector'`);
/// - an option given twice that takes one value: `--format is given twice; give it once`;
/// - `--help` or `-h`: the command's usage;
/// - `--` ends the options: every argument after it is the command's own (a scenario named
///   `-x` is `-- -x`).
///
/// Anything else is handed to `operand`, which refuses what the command does not take.
struct CommandLineParser<Settings> {
    /// The command's name in messages (`trace`); empty for the inspector.
    var command: String
    var options: [CommandOption<Settings>]
    /// The text `--help` prints.
    var usage: String
    /// What an argument that is not an option does.
    var operand: (inout Settings, String) throws -> Void
    /// The refusal of an unknown option, from the argument as it may be shown.
    var unknown: (String) -> String
    /// The refusal of an option given a second time, from the argument as given.
    var repeated: (String) -> String = { "\($0) is given twice; give it once" }

    init(
        command: String, options: [CommandOption<Settings>], usage: String,
        unknown: ((String) -> String)? = nil, operand: @escaping (inout Settings, String) throws -> Void
    ) {
        self.command = command
        self.options = options
        self.usage = usage
        self.operand = operand
        let forCommand = command.isEmpty ? "" : " for \(command)"
        let valid = options.map(\.names[0]).joined(separator: ", ")
        self.unknown = unknown ?? { "unknown option '\($0)'\(forCommand); valid: \(valid)" }
    }

    func parse(_ arguments: [String], into settings: inout Settings) throws {
        var remaining = arguments[...]
        var given: Set<String> = []
        while let argument = remaining.popFirst() {
            if argument == "--" {
                for operand in remaining { try self.operand(&settings, operand) }
                return
            }
            if argument == "--help" || argument == "-h" { throw HelpRequested(text: usage) }
            guard let option = options.first(where: { $0.names.contains(argument) }) else {
                if argument.hasPrefix("-") { throw CommandLineError(unknown(VisibleEscapes.escape(argument))) }
                try operand(&settings, argument)
                continue
            }
            guard option.repeatable || given.insert(option.names[0]).inserted else { throw CommandLineError(repeated(argument)) }
            var value = ""
            if option.takesValue {
                guard let next = remaining.popFirst(), !next.hasPrefix("--") || next == "-" else {
                    throw CommandLineError("\(argument) needs a value; see 'chainlab \(command.isEmpty ? "--help-inspector" : "\(command) --help")'")
                }
                value = next
            }
            try option.apply(&settings, value)
        }
    }
}

/// `--help`: the command's usage goes to standard output and the process exits with 0.
struct HelpRequested: Error {
    let text: String
}
