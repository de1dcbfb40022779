import Foundation
import Lab
import Outbound
import Vocabulary

/// `--cacert FILE` and `--insecure`, as `trace`, the inspector and `serve` take them, and the
/// `SSL_CERT_FILE` environment variable: which certificates `https://` exchanges accept.
/// The choice is the process's (``HTTPSTrust/install(_:)``): it covers operations, refreshes,
/// the OTLP export and the proxy's upstream alike.
struct TLSOptions {
    static let usage = """
          --cacert FILE       trust the PEM certificates in FILE for https://, as well as the
                              system's (SSL_CERT_FILE names a PEM file trusted instead of them)
          --insecure          check no https:// certificate (a development server's); every
                              screen and output says so
        """

    /// The largest certificate file read: 16 MiB (a system bundle is about 200 KiB).
    static let fileLimit = 16 << 20

    var caFile: String?
    var insecure = false

    static var options: [CommandOption<TLSOptions>] {
        [
            .value("--cacert") { $0.caFile = $1 },
            .flag("--insecure") { $0.insecure = true },
        ]
    }

    /// The trust these options and `SSL_CERT_FILE` ask for.
    /// - Throws: a ``CommandLineError`` (exit 2) naming a file that cannot be read or holds
    ///   no PEM certificate, or when both options are given.
    func trust(environment: [String: String]) throws -> HTTPSTrust {
        if insecure, caFile != nil { throw CommandLineError("give --cacert or --insecure, not both") }
        if insecure || caFile != nil, !HTTPSTrust.isConfigurable {
            throw CommandLineError("--cacert and --insecure work on Linux only for now; here URLSession checks certificates against the system's store")
        }
        if insecure { return .unverified }
        let replacement = environment["SSL_CERT_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        guard HTTPSTrust.isConfigurable, caFile != nil || replacement != nil else { return .system }
        var pem = try replacement.map { try Self.certificates(in: $0, named: "SSL_CERT_FILE") } ?? HTTPSTrust.systemCertificates()
        if let caFile {
            pem.append(contentsOf: Array("\n".utf8))
            pem.append(try Self.certificates(in: caFile, named: "--cacert"))
        }
        return .certificates(pem: pem)
    }

    private static func certificates(in path: String, named source: String) throws -> Data {
        let data = try readFile(path, purpose: "\(source) file", limit: fileLimit)
        guard HTTPSTrust.holdsPEMCertificate(data) else {
            throw CommandLineError("\(source) \(VisibleEscapes.escape(path)): no PEM certificate in it (expected -----BEGIN CERTIFICATE-----)")
        }
        return data
    }
}
