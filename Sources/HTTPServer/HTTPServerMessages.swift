public import Foundation
import Vocabulary

/// One header line as it travelled on the wire: the name keeps its case, the value has
/// its surrounding spaces and tabs removed.
public struct HTTPServerHeader: Sendable, Hashable, CustomStringConvertible {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// `Name: value`.
    public var description: String { "\(name): \(value)" }

    /// Whether this header is called `other`, ignoring ASCII case.
    public func hasName(_ other: String) -> Bool {
        name.utf8.count == other.utf8.count
            && zip(name.utf8, other.utf8).allSatisfy { HTTPSyntax.lowercased($0) == HTTPSyntax.lowercased($1) }
    }
}

/// A complete request the server received.
public struct HTTPServerRequest: Sendable, Hashable {
    /// The protocol versions the server speaks.
    public enum Version: String, Sendable, Hashable {
        case http1_0 = "HTTP/1.0"
        case http1_1 = "HTTP/1.1"
    }

    /// The method token exactly as sent ("GET", "POST", ...).
    public var method: String
    /// The request target exactly as sent: usually a path with query ("/graphql?x=1").
    public var target: String
    public var version: Version
    /// Every header in the order received, names with their case preserved.
    public var headers: [HTTPServerHeader]
    /// The body: exactly Content-Length bytes, empty when there is none.
    public var body: Data

    public init(method: String, target: String, version: Version = .http1_1, headers: [HTTPServerHeader] = [], body: Data = Data()) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
    }

    /// Every value of the header `name` (ASCII case-insensitive), in order.
    public func values(forHeader name: String) -> [String] {
        headers.filter { $0.hasName(name) }.map(\.value)
    }

    /// The values of the header `name` joined with ", ", or nil when absent.
    public func value(forHeader name: String) -> String? {
        let values = values(forHeader: name)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    /// Whether the client lets the connection stay open after this request: HTTP/1.1
    /// without a `close` token in `Connection` (RFC 9112 §9.3). HTTP/1.0 connections
    /// always close after one exchange.
    public var allowsKeepAlive: Bool {
        guard version == .http1_1 else { return false }
        return !values(forHeader: "Connection").contains { list in
            list.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "close" }
        }
    }
}

/// What a handler answers.
///
/// The server owns the framing headers: it writes `Content-Length` from `body`, or
/// `Transfer-Encoding: chunked` for a ``stream`` (and drops any `Content-Length` or
/// `Transfer-Encoding` given here) and `Connection: close` when it
/// is going to close. A `Connection: close` header given here makes the server close the
/// connection after this response. 204 and 304 responses go out without a body and
/// without `Content-Length`, as RFC 9110 §8.6 and §15.4.5 require; a body given with them
/// is not sent. A status outside 200...599, or a header that is not a valid token name
/// with a value free of CR, LF and NUL, is a handler bug: the client then gets a 500 that
/// names it instead.
///
/// ```swift
/// HTTPServerResponse(status: 200, headers: [HTTPServerHeader(name: "Content-Type", value: "application/json")],
///                    body: Data(#"{"ok":true}"#.utf8))
/// ```
public struct HTTPServerResponse: Sendable, Hashable {
    public var status: Int
    public var headers: [HTTPServerHeader]
    public var body: Data
    /// A body sent as it is produced, with `Transfer-Encoding: chunked`, instead of `body`;
    /// nil sends `body` with `Content-Length`.
    public var stream: HTTPServerBodyStream?

    public init(status: Int, headers: [HTTPServerHeader] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
        self.stream = nil
    }

    /// A response whose body `stream` writes while it is sent.
    public init(status: Int, headers: [HTTPServerHeader] = [], stream: HTTPServerBodyStream) {
        self.init(status: status, headers: headers)
        self.stream = stream
    }

    /// A `text/plain; charset=utf-8` response whose body is `text`.
    public static func text(_ text: String, status: Int = 200) -> HTTPServerResponse {
        HTTPServerResponse(
            status: status,
            headers: [HTTPServerHeader(name: "Content-Type", value: "text/plain; charset=utf-8")],
            body: Data(text.utf8)
        )
    }
}
