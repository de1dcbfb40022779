import Foundation
import Lab

/// `--otlp-endpoint`, `--otlp-header` and `--service-name`, as `trace` and the inspector take
/// them.
struct OTLPOptions {
    static let names = ["--otlp-endpoint", "--otlp-header", "--service-name"]

    var endpoint: String?
    var headers: [String] = []
    var serviceName = "chainlab"

    /// Reads `argument`'s value if it is one of these options; false when it is not.
    mutating func read(_ argument: String, from list: inout ArgumentList) throws -> Bool {
        switch argument {
        case "--otlp-endpoint": endpoint = try list.value(for: argument)
        case "--otlp-header": headers.append(try list.value(for: argument))
        case "--service-name":
            serviceName = try list.value(for: argument)
            guard !serviceName.isEmpty else { throw CommandLineError("--service-name needs a non-empty name") }
        default: return false
        }
        return true
    }

    /// The sender the options ask for, or nil without `--otlp-endpoint`; a bad endpoint or
    /// header is a command-line error.
    func sender() throws -> OTLPSender? {
        guard let endpoint else {
            if !headers.isEmpty { throw CommandLineError("--otlp-header needs --otlp-endpoint") }
            return nil
        }
        do {
            return try OTLPSender(endpoint: endpoint, headers: headers)
        } catch {
            throw CommandLineError(error.description)
        }
    }
}
