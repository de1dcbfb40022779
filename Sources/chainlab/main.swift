import ChainKit
import Foundation
import Inspector
import Lab
import TerminalUI
import Timeline
import Vocabulary

let usage = """
    chainlab — step through Swift interceptor chains (Apollo iOS RequestChain,
    swift-openapi-runtime middleware) hop by hop, on an embedded lab backend.

    USAGE: chainlab [SCENARIO] [options]       open the inspector (basics by default)
           chainlab trace SCENARIO [options]   run a scenario headless and print its timeline
           chainlab lint SCENARIO [options]    check a scenario's chain against the lint rules
           chainlab scenarios [--show NAME]    list the built-in scenarios, or print one
           chainlab serve [options]            serve the lab backend over HTTP on 127.0.0.1
           chainlab serve --upstream URL       a fault-injecting proxy in front of your server
           chainlab keys [--markdown]          the inspector's keys in force (config file included)
           chainlab new DIR                    a Swift package that opens the inspector on its own interceptors
           chainlab --version                  the version
           chainlab help                       this text

    Run 'chainlab --help-inspector', 'chainlab trace --help', 'chainlab lint --help' and
    'chainlab serve --help' for their options.
    Scenarios: \(ScenarioSource.builtInList)
    """

func fail(_ message: String, status: Int32) -> Never {
    writeStandardError("chainlab: \(VisibleEscapes.escape(message))\n")
    exit(status)
}

// Output may be a pipe whose reader has gone (`chainlab trace … | head`, `serve | …`): a
// write then fails with EPIPE, reported like any failed write, instead of killing the
// process with SIGPIPE before it can restore the terminal or exit with its own status.
signal(SIGPIPE, SIG_IGN)

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "help", "--help", "-h":
        print(usage)
    case "--version", "version":
        print("chainlab \(ChainLabVersion.current)")
    case "--help-inspector":
        print(InspectCommand.usage)
    case "trace":
        let command = try TraceCommand(arguments: Array(arguments.dropFirst()))
        exit(try await command.run(environment: ProcessInfo.processInfo.environment))
    case "lint":
        let (output, status) = try LintCommand(arguments: Array(arguments.dropFirst())).run()
        FileHandle.standardOutput.write(Data(output.utf8))
        exit(status)
    case "scenarios":
        let command = try ScenariosCommand(arguments: Array(arguments.dropFirst()))
        writeStandardOutput(try command.run())
    case "serve":
        let command = try ServeCommand(arguments: Array(arguments.dropFirst()))
        exit(try await command.run())
    case "keys":
        print(try KeysCommand(arguments: Array(arguments.dropFirst())).run(), terminator: "")
    case "new":
        let command = try NewCommand(arguments: Array(arguments.dropFirst()))
        writeStandardOutput(try command.run(executable: URL(fileURLWithPath: CommandLine.arguments[0])))
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
