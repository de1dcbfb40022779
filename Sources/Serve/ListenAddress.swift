#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A numeric address `serve` can listen on, and whether only this machine can reach it.
///
/// ```swift
/// ListenAddress("127.0.0.1")?.isLoopback   // true
/// ListenAddress("0.0.0.0")?.isLoopback     // false: every interface
/// ListenAddress("::1")?.authority(port: 8080) // "[::1]:8080"
/// ListenAddress("localhost")               // nil: names are not resolved
/// ```
public struct ListenAddress: Sendable, Hashable {
    /// The address as given.
    public let host: String
    /// Whether the address is in 127.0.0.0/8, is `::1`, or is an IPv4-mapped loopback
    /// address (`::ffff:127.0.0.1`).
    public let isLoopback: Bool
    private let isIPv6: Bool

    /// The address `host` spells, or nil when it is not a numeric IPv4 or IPv6 address.
    public init?(_ host: String) {
        var ipv4 = in_addr()
        var ipv6 = in6_addr()
        if inet_pton(AF_INET, host, &ipv4) == 1 {
            isIPv6 = false
            isLoopback = withUnsafeBytes(of: &ipv4) { $0[0] == 127 }
        } else if inet_pton(AF_INET6, host, &ipv6) == 1 {
            isIPv6 = true
            isLoopback = withUnsafeBytes(of: &ipv6) { bytes in
                let loopback: [UInt8] = Array(repeating: 0, count: 15) + [1]
                let mappedPrefix: [UInt8] = Array(repeating: 0, count: 10) + [0xFF, 0xFF]
                return bytes.elementsEqual(loopback) || (bytes.prefix(12).elementsEqual(mappedPrefix) && bytes[12] == 127)
            }
        } else {
            return nil
        }
        self.host = host
    }

    /// `127.0.0.1`, where `serve` listens unless told otherwise.
    public static let ipv4Loopback = ListenAddress(host: "127.0.0.1", isLoopback: true, isIPv6: false)

    private init(host: String, isLoopback: Bool, isIPv6: Bool) {
        self.host = host
        self.isLoopback = isLoopback
        self.isIPv6 = isIPv6
    }

    /// `host:port` as it is written in a URL, with an IPv6 address in brackets.
    public func authority(port: UInt16) -> String {
        isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
