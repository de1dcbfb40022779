import Foundation
import Vocabulary

/// Reading `application/x-www-form-urlencoded` text, as OAuth token requests (RFC 6749
/// §4.3.2, §6) and GraphQL GET query strings carry their parameters.
package enum FormURLEncoding {
    /// Why a form could not be read.
    package enum Failure: Error, Equatable {
        case badPercentEscape(offset: Int)
        case repeatedParameter(String)
    }

    /// The parameters of `text` in order. `+` is a space; a `%` must start two hex digits; a
    /// parameter may appear only once (RFC 6749 §3.2); empty pieces between `&`s are skipped.
    package static func parameters(_ text: Substring) -> Result<[String: String], Failure> {
        var parameters: [String: String] = [:]
        var offset = 0
        for piece in text.split(separator: "&", omittingEmptySubsequences: false) {
            defer { offset += piece.utf8.count + 1 }
            guard !piece.isEmpty else { continue }
            let pair = piece.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(pair[0]) else { return .failure(.badPercentEscape(offset: offset)) }
            guard let value = decode(pair.count > 1 ? pair[1] : "") else {
                return .failure(.badPercentEscape(offset: offset))
            }
            guard parameters[name] == nil else { return .failure(.repeatedParameter(name)) }
            parameters[name] = value
        }
        return .success(parameters)
    }

    /// `text` with `%XX` escapes (and, in forms, `+` as space) decoded; nil on a broken
    /// escape. Bytes that are not UTF-8 become U+FFFD.
    static func decode(_ text: Substring, plusIsSpace: Bool = true) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+") where plusIsSpace: bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(HTTPSyntax.hexDigitValue), let low = iterator.next().flatMap(HTTPSyntax.hexDigitValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
