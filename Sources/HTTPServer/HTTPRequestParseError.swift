import Vocabulary

/// Why the bytes received are not a request the server accepts, with the status to answer.
///
/// Text taken from the request appears in ``description`` escaped (`\r`, `\xNN`), so an
/// error message can be shown or logged safely.
public enum HTTPRequestParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The first line is not `method SP target SP HTTP/x.y`; the detail says which part.
    case malformedRequestLine(String)
    /// A well-formed version other than HTTP/1.0 and HTTP/1.1.
    case unsupportedVersion(String)
    /// A head line that is not `name: value` (no colon, an empty name, obsolete line
    /// folding). `line` counts the request line as 1.
    case invalidHeaderLine(line: Int, reason: String)
    /// A header name with a byte outside the RFC 9110 token characters.
    case invalidHeaderName(name: String, byte: UInt8, offset: Int)
    /// A header value holding CR, LF or NUL; `offset` is within the value after its
    /// leading whitespace.
    case invalidHeaderValue(name: String, byte: UInt8, offset: Int)
    /// A header value that is not valid UTF-8.
    case headerValueNotUTF8(name: String)
    /// An HTTP/1.1 request without a Host header (RFC 9112 §3.2).
    case missingHost
    /// More than one Host header.
    case multipleHosts(count: Int)
    /// A Content-Length that is not a list of decimal numbers.
    case invalidContentLength(String)
    /// Content-Length values that disagree (every value is listed as sent).
    case conflictingContentLength([String])
    /// A Transfer-Encoding other than `chunked` alone: the server reads bodies by
    /// Content-Length or chunked coding only.
    case transferEncodingNotSupported(String)
    /// Transfer-Encoding and Content-Length together, or Transfer-Encoding in HTTP/1.0:
    /// two parties could disagree on where the body ends (RFC 9112 §6.1, §6.3).
    case ambiguousFraming(String)
    /// A chunked body that breaks RFC 9112 §7.1; the detail says how.
    case invalidChunkedBody(String)
    /// An Expect header other than `100-continue`.
    case unsupportedExpectation(String)
    /// The head is longer than ``HTTPRequestLimits/maxHeaderBytes``.
    case headersTooLarge(limit: Int)
    /// The Content-Length (as a decimal without leading zeros) is over
    /// ``HTTPRequestLimits/maxBodyBytes``.
    case bodyTooLarge(contentLength: String, limit: Int)
    /// A chunked body grew past ``HTTPRequestLimits/maxBodyBytes``.
    case chunkedBodyTooLarge(limit: Int)

    /// The status code the server answers this error with.
    public var status: Int {
        switch self {
        case .unsupportedVersion: 505
        case .transferEncodingNotSupported: 501
        case .unsupportedExpectation: 417
        case .headersTooLarge: 431
        case .bodyTooLarge, .chunkedBodyTooLarge: 413
        default: 400
        }
    }

    public var description: String {
        switch self {
        case .malformedRequestLine(let detail):
            "malformed request line: \(detail)"
        case .unsupportedVersion(let version):
            "HTTP version \"\(version)\" is not supported; use HTTP/1.1 or HTTP/1.0"
        case .invalidHeaderLine(let line, let reason):
            "line \(line) of the request head: \(reason)"
        case .invalidHeaderName(let name, let byte, let offset):
            "header name \"\(name)\" is not a token: \(HTTPSyntax.describe(byte)) at offset \(offset); "
                + "use letters, digits and !#$%&'*+-.^_`|~"
        case .invalidHeaderValue(let name, let byte, let offset):
            "header \"\(name)\" has \(HTTPSyntax.describe(byte)) at offset \(offset) of its value; "
                + "CR, LF and NUL are not allowed"
        case .headerValueNotUTF8(let name):
            "header \"\(name)\" has a value that is not valid UTF-8"
        case .missingHost:
            "an HTTP/1.1 request needs a Host header"
        case .multipleHosts(let count):
            "\(count) Host headers; send exactly one"
        case .invalidContentLength(let value):
            "Content-Length \"\(value)\" is not a decimal number"
        case .conflictingContentLength(let values):
            "conflicting Content-Length values: " + values.map { "\"\($0)\"" }.joined(separator: ", ")
        case .transferEncodingNotSupported(let value):
            "Transfer-Encoding \"\(value)\" is not supported; send the body with Content-Length or Transfer-Encoding: chunked"
        case .ambiguousFraming(let detail):
            "ambiguous body framing: \(detail)"
        case .invalidChunkedBody(let detail):
            "malformed chunked body: \(detail)"
        case .unsupportedExpectation(let value):
            "Expect \"\(value)\" is not supported; only 100-continue is"
        case .headersTooLarge(let limit):
            "the request head is larger than \(limit) bytes"
        case .bodyTooLarge(let contentLength, let limit):
            "a body of \(contentLength) bytes is larger than the \(limit)-byte limit"
        case .chunkedBodyTooLarge(let limit):
            "the chunked body is larger than the \(limit)-byte limit"
        }
    }
}
