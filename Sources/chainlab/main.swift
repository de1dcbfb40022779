import ChainKit
import Foundation
import Lab

let usage = """
    chainlab — step through Swift interceptor chains (Apollo iOS RequestChain,
    swift-openapi-runtime middleware) hop by hop, on an embedded lab backend.

    USAGE: chainlab trace SCENARIO [options]   run a scenario headless and print its timeline
           chainlab serve [options]            serve the lab backend over HTTP on 127.0.0.1
           chainlab help                       this text

    Run 'chainlab trace --help' and 'chainlab serve --help' for their options.
    Scenarios: \(Catalog.names.joined(separator: ", "))
    """

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("chainlab: \(message)\n".utf8))
    exit(status)
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case nil, "help", "--help", "-h":
        print(usage)
    case "trace":
        let command = try TraceCommand(arguments: Array(arguments.dropFirst()))
        exit(try await command.run())
    case "serve":
        let command = try ServeCommand(arguments: Array(arguments.dropFirst()))
        exit(try await command.run())
    default:
        throw CommandLineError("unknown command '\(VisibleEscapes.escape(arguments[0]))'; valid: trace, serve, help")
    }
} catch let help as HelpRequested {
    print(help.text)
} catch let error as CommandLineError {
    fail(error.message, status: 2)
} catch {
    fail("\(error)", status: 1)
}
