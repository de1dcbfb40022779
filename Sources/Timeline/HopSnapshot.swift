public import ChainKit
public import Foundation

/// The request or response a hop saw, frozen.
///
/// A final class with only constant fields, so it is `Sendable` and one instance can be shared
/// by every event that saw the same message: an event holds one reference instead of copies
/// of the method, URL, headers and body.
public final class HopSnapshot: Sendable, Hashable {
    /// A snapshot with nothing in it, shared by every event that carries no message.
    public static let empty = HopSnapshot()

    public let method: String?
    /// The absolute URL as text.
    public let url: String?
    public let headers: HTTPFields?
    public let status: Int?
    public let error: String?
    public let body: BodyPreview?

    public init(
        method: String? = nil, url: String? = nil, headers: HTTPFields? = nil, status: Int? = nil,
        error: String? = nil, body: BodyPreview? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.status = status
        self.error = error
        self.body = body
    }

    /// What an HTTP interceptor or the GraphQL transport sees going down.
    public convenience init(_ request: NetworkRequest, bodyLimit: Int = BodyPreview.defaultLimit) {
        self.init(
            method: request.method.rawValue, url: request.url.absoluteString, headers: request.headerFields,
            body: request.body.map { BodyPreview($0, limit: bodyLimit) })
    }

    /// What a middleware or the middleware transport sees going down; the body is optional
    /// because middleware bodies are streams that may be read only once.
    public convenience init(_ request: HTTPRequest, baseURL: URL, body: Data? = nil, bodyLimit: Int = BodyPreview.defaultLimit) {
        self.init(
            method: request.method.rawValue,
            url: request.url(relativeTo: baseURL)?.absoluteString ?? request.path,
            headers: request.headerFields,
            body: body.map { BodyPreview($0, limit: bodyLimit) })
    }

    /// A response head and, when already buffered, its body.
    public convenience init(_ response: HTTPResponse, body: Data? = nil, bodyLimit: Int = BodyPreview.defaultLimit) {
        self.init(
            headers: response.headerFields, status: response.status,
            body: body.map { BodyPreview($0, limit: bodyLimit) })
    }

    public static func == (lhs: HopSnapshot, rhs: HopSnapshot) -> Bool {
        lhs === rhs
            || (lhs.method == rhs.method && lhs.url == rhs.url && lhs.headers == rhs.headers
                && lhs.status == rhs.status && lhs.error == rhs.error && lhs.body == rhs.body)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(method)
        hasher.combine(url)
        hasher.combine(headers)
        hasher.combine(status)
        hasher.combine(error)
        hasher.combine(body)
    }
}

/// The start of a body, bounded so a large upload does not bloat the timeline.
///
/// ```swift
/// let preview = BodyPreview(Data(repeating: 65, count: 10_000))
/// preview.text.utf8.count // 4096
/// preview.byteCount       // 10000
/// preview.isTruncated     // true
/// ```
public struct BodyPreview: Sendable, Hashable {
    /// Bytes kept when no limit is given: 4 KiB.
    public static let defaultLimit = 4096

    /// The kept bytes as UTF-8 text (invalid sequences become U+FFFD).
    public let text: String
    /// The size of the whole body in bytes.
    public let byteCount: Int
    /// Whether `text` is only the start of the body.
    public let isTruncated: Bool

    /// The first `limit` bytes of `data`, cut back to a whole UTF-8 character.
    public init(_ data: Data, limit: Int = BodyPreview.defaultLimit) {
        byteCount = data.count
        guard data.count > limit else {
            text = String(decoding: data, as: UTF8.self)
            isTruncated = false
            return
        }
        var end = data.startIndex + max(limit, 0)
        // Step back over continuation bytes so the cut never splits a character.
        while end > data.startIndex, data[end] & 0xC0 == 0x80 { end -= 1 }
        text = String(decoding: data[data.startIndex..<end], as: UTF8.self)
        isTruncated = true
    }

    /// A preview as decoded from an export.
    public init(text: String, byteCount: Int, isTruncated: Bool) {
        self.text = text
        self.byteCount = byteCount
        self.isTruncated = isTruncated
    }
}
