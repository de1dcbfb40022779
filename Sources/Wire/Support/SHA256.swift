public import Foundation
#if canImport(CryptoKit)
import CryptoKit
#elseif canImport(CCrypto)
import CCrypto
#endif

/// SHA-256 from the platform's crypto library (CryptoKit on Apple platforms, OpenSSL's
/// libcrypto elsewhere), as automatic persisted queries need.
public enum SHA256Digest {
    /// The lowercase hex SHA-256 of `data`.
    public static func hex(of data: Data) -> String {
        #if canImport(CryptoKit)
        let digest = Array(CryptoKit.SHA256.hash(data: data))
        #else
        var digest = [UInt8](repeating: 0, count: 32)
        data.withUnsafeBytes { buffer in
            _ = CCrypto.SHA256(buffer.bindMemory(to: UInt8.self).baseAddress, buffer.count, &digest)
        }
        #endif
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(64)
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The lowercase hex SHA-256 of the UTF-8 bytes of `text`.
    public static func hex(of text: String) -> String {
        hex(of: Data(text.utf8))
    }
}
