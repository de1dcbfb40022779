#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why ``HTTPServer/start()`` failed.
public enum HTTPServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The host is not a numeric IPv4 or IPv6 address.
    case invalidHost(String)
    /// A server starts at most once; this one was already started or stopped.
    case alreadyStarted
    /// A socket call failed; `errno` is the system error number.
    case socket(call: String, errno: Int32)

    public var description: String {
        switch self {
        case .invalidHost(let host):
            "\"\(host)\" is not a numeric IPv4 or IPv6 address (for example 127.0.0.1 or ::1)"
        case .alreadyStarted:
            "the server was already started; create a new one to listen again"
        case .socket(let call, let errno):
            "\(call) failed: \(String(cString: strerror(errno))) (errno \(errno))"
        }
    }
}
