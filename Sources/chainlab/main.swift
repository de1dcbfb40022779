import ChainKit
import Foundation
import Inspector
import Lab
import TerminalUI
import Vocabulary

let usage = """
    chainlab — step through Swift interceptor chains (Apollo iOS RequestChain,
    swift-openapi-runtime middleware) hop by hop, on an embedded lab backend.

    USAGE: chainlab [SCENARIO] [options]       open the inspector (basics by default)
           chainlab trace SCENARIO [options]   run a scenario headless and print its timeline
           chainlab scenarios [--show NAME]    list the built-in scenarios, or print one
           chainlab serve [options]            serve the lab backend over HTTP on 127.0.0.1
           chainlab keys [--markdown]          the inspector's keys
           chainlab help                       this text

    Run 'chainlab --help-inspector', 'chainlab trace --help' and 'chainlab serve --help'
    for their options.
    Scenarios: \(ScenarioSource.builtInList)
    """

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("chainlab: \(VisibleEscapes.escape(message))\n".utf8))
    exit(status)
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "help", "--help", "-h":
        print(usage)
    case "--help-inspector":
        print(InspectCommand.usage)
    case "trace":
        let command = try TraceCommand(arguments: Array(arguments.dropFirst()))
        exit(try await command.run())
    case "scenarios":
        let command = try ScenariosCommand(arguments: Array(arguments.dropFirst()))
        FileHandle.standardOutput.write(Data(try command.run().utf8))
    case "serve":
        let command = try ServeCommand(arguments: Array(arguments.dropFirst()))
        exit(try await command.run())
    case "keys":
        let rest = Array(arguments.dropFirst())
        guard rest.isEmpty || rest == ["--markdown"] else {
            throw CommandLineError("unknown argument '\(VisibleEscapes.escape(rest[0]))' for keys; valid: --markdown")
        }
        if rest.isEmpty {
            for line in Inspector.helpLines { print(line.spans.map(\.text).joined()) }
        } else {
            print(Keymap.markdownTable, terminator: "")
        }
    default:
        let command = try InspectCommand(arguments: arguments)
        exit(try await command.run(environment: ProcessInfo.processInfo.environment))
    }
} catch let help as HelpRequested {
    print(help.text)
} catch let error as CommandLineError {
    fail(error.message, status: 2)
} catch {
    fail("\(error)", status: 1)
}
