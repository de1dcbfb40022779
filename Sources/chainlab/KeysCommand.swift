import Foundation
import Inspector
import TerminalUI
import Vocabulary

/// `chainlab keys`: the keys in force (the config file's bindings over the standard ones),
/// as the help overlay lists them or, with `--markdown`, as the table of docs/keys.md.
struct KeysCommand {
    static let usage = """
        USAGE: chainlab keys [--markdown] [--config FILE]

        Prints the inspector's keys in force: the config file's bindings over the standard
        ones, then each overlay's keys.

          --markdown          print them as the Markdown tables of docs/keys.md
          --config FILE       read the bindings from FILE instead of
                              $XDG_CONFIG_HOME/chainlab/config.json (~/.config/chainlab/config.json)
        """

    var markdown = false
    var configPath: String?

    init(arguments: [String]) throws {
        let refusal = { (argument: String) in "unexpected argument '\(argument)' for keys; valid: --markdown, --config FILE, each once" }
        let options: [CommandOption<Self>] = [
            .flag("--markdown") { $0.markdown = true },
            .value("--config") { $0.configPath = $1 },
        ]
        var parser = CommandLineParser<Self>(command: "keys", options: options, usage: Self.usage, unknown: refusal) { _, argument in
            throw CommandLineError(refusal(VisibleEscapes.escape(argument)))
        }
        parser.repeated = refusal
        try parser.parse(arguments, into: &self)
    }

    func run() throws -> String {
        let keys = try ConfigFile.load(path: configPath, environment: ProcessInfo.processInfo.environment).keys
        if markdown { return keys.markdownTable }
        return Inspector.helpLines(keys: keys).map { $0.spans.map(\.text).joined() + "\n" }.joined()
    }
}
