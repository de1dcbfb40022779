public import Foundation
#if canImport(FoundationNetworking)
package import FoundationNetworking
#endif
import Synchronization

/// Which servers' certificates `https://` exchanges accept, for the whole process: every
/// exchange ChainLab makes (operations, refreshes, `/_lab/` calls, the OTLP export, the
/// proxy's upstream) follows ``current``.
///
/// ```swift
/// HTTPSTrust.install(.certificates(pem: try HTTPSTrust.systemCertificates() + Data(contentsOf: caFile)))
/// ```
///
/// Install it before the first exchange; it applies process-wide. On Linux every `https://`
/// exchange goes through libcurl itself (``CurlHTTPSProtocol``), because FoundationNetworking
/// offers no way to change the trust, nor to stop a cancelled transfer. On other platforms
/// only ``system`` is available for now.
public enum HTTPSTrust: Sendable, Hashable {
    /// The platform's certificate store: libcurl's default bundle on Linux, URLSession's own
    /// handling elsewhere.
    case system
    /// Exactly these PEM certificates, one bundle: add ``systemCertificates()`` to trust
    /// them as well as the system's.
    case certificates(pem: Data)
    /// No certificate is checked (`--insecure`): any server, any name.
    case unverified

    private static let installed = Mutex(HTTPSTrust.system)

    /// The trust every `https://` exchange uses now.
    public static var current: HTTPSTrust { installed.withLock { $0 } }

    /// Whether trusts other than ``system`` can be installed on this platform.
    public static var isConfigurable: Bool {
        #if canImport(CCurl)
        true
        #else
        false
        #endif
    }

    /// Makes `trust` the process's.
    public static func install(_ trust: HTTPSTrust) {
        installed.withLock { $0 = trust }
    }

    /// Prepares a session configuration to follow ``current``: on Linux, `https://` goes
    /// through ``CurlHTTPSProtocol``. Every URLSession that
    /// ChainLab makes for a server is configured through this.
    package static func prepare(_ configuration: URLSessionConfiguration) {
        #if canImport(CCurl)
        configuration.protocolClasses = [CurlHTTPSProtocol.self] + (configuration.protocolClasses ?? [])
        #endif
    }

    /// The certificates the system trusts, as PEM: the bundle libcurl verifies with by
    /// default. Empty where there is none to read (Darwin keeps its store elsewhere).
    public static func systemCertificates() -> Data {
        #if canImport(CCurl)
        guard let path = CurlHTTPSProtocol.defaultCAFile else { return Data() }
        return (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()
        #else
        Data()
        #endif
    }

    /// Whether `data` holds at least one PEM certificate (`-----BEGIN CERTIFICATE-----`
    /// … `-----END CERTIFICATE-----`).
    public static func holdsPEMCertificate(_ data: Data) -> Bool {
        let text = String(decoding: data, as: UTF8.self)
        guard let begin = text.range(of: "-----BEGIN CERTIFICATE-----") else { return false }
        return text.range(of: "-----END CERTIFICATE-----", range: begin.upperBound..<text.endIndex) != nil
    }
}
