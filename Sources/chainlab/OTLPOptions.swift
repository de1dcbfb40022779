import Foundation
import Lab
import Outbound

/// `--otlp-endpoint`, `--otlp-header` and `--service-name`, as `trace` and the inspector take
/// them.
struct OTLPOptions {
    var endpoint: String?
    var headers: [String] = []
    var serviceName = "chainlab"

    /// The options, as `trace` and the inspector take them.
    static var options: [CommandOption<OTLPOptions>] {
        [
            .value("--otlp-endpoint") { $0.endpoint = $1 },
            .value("--otlp-header", repeatable: true) { $0.headers.append($1) },
            .value("--service-name") { settings, name in
                guard !name.isEmpty else { throw CommandLineError("--service-name needs a non-empty name") }
                settings.serviceName = name
            },
        ]
    }

    /// The sender the options ask for, each try ending within `timeout` seconds, or nil
    /// without `--otlp-endpoint`; a bad endpoint or header is a command-line error.
    func sender(timeout: Double) throws -> OTLPSender? {
        guard let endpoint else {
            if !headers.isEmpty { throw CommandLineError("--otlp-header needs --otlp-endpoint") }
            return nil
        }
        do {
            return try OTLPSender(endpoint: endpoint, headers: headers, timeout: timeout)
        } catch {
            throw CommandLineError(error.description)
        }
    }
}
