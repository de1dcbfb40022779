import Vocabulary

extension HTTPField {
    /// A header name (swift-http-types' `HTTPField.Name`): an RFC 9110 token, compared without
    /// regard to ASCII case and kept as written.
    ///
    /// ```swift
    /// request.headerFields[.authorization] = "Bearer \(token)"
    /// let custom = HTTPField.Name("X-Request-ID")!
    /// ```
    public struct Name: Sendable, Hashable, CustomStringConvertible {
        /// The name as it was written.
        public let rawName: String

        /// A name when `name` is a valid token; nil otherwise.
        public init?(_ name: String) {
            guard HTTPSyntax.isToken(name.utf8) else { return nil }
            rawName = name
        }

        /// A name from a token known to be valid.
        init(token: String) { rawName = token }

        /// The name in lower case, as HTTP/2 and HTTP/3 send it.
        public var canonicalName: String { rawName.lowercased() }

        public var description: String { rawName }

        public static func == (lhs: Name, rhs: Name) -> Bool { HTTPField.namesMatch(lhs.rawName, rhs.rawName) }

        public func hash(into hasher: inout Hasher) { hasher.combine(canonicalName) }
    }

    /// A field from a name and a value. As swift-http-types does, bytes a value may not hold
    /// (controls other than tab, CR, LF, NUL) become spaces, and spaces and tabs at either end
    /// are dropped: this form cannot fail. The throwing form that takes the name as a string
    /// refuses such a value instead.
    public init(name: Name, value: String) {
        self.init(validName: name.rawName, value: Self.legalized(value))
    }

    /// The name as a ``Name``.
    public var fieldName: Name { Name(token: name) }

    /// `value` with every byte a field value may not hold made a space, and trimmed of
    /// spaces and tabs at either end; the value itself when it holds none.
    static func legalized(_ value: String) -> String {
        let spaced = HTTPSyntax.legalizedFieldContent(value)
        let bytes = spaced.utf8
        guard bytes.first.map(HTTPSyntax.isWhitespace) == true || bytes.last.map(HTTPSyntax.isWhitespace) == true else { return spaced }
        let trimmed = bytes.drop(while: HTTPSyntax.isWhitespace).reversed().drop(while: HTTPSyntax.isWhitespace).reversed()
        return String(decoding: Array(trimmed), as: UTF8.self)
    }
}

extension HTTPField.Name {
    public static var accept: Self { .init(token: "Accept") }
    public static var acceptEncoding: Self { .init(token: "Accept-Encoding") }
    public static var acceptLanguage: Self { .init(token: "Accept-Language") }
    public static var acceptRanges: Self { .init(token: "Accept-Ranges") }
    public static var accessControlAllowCredentials: Self { .init(token: "Access-Control-Allow-Credentials") }
    public static var accessControlAllowHeaders: Self { .init(token: "Access-Control-Allow-Headers") }
    public static var accessControlAllowMethods: Self { .init(token: "Access-Control-Allow-Methods") }
    public static var accessControlAllowOrigin: Self { .init(token: "Access-Control-Allow-Origin") }
    public static var accessControlExposeHeaders: Self { .init(token: "Access-Control-Expose-Headers") }
    public static var accessControlMaxAge: Self { .init(token: "Access-Control-Max-Age") }
    public static var accessControlRequestHeaders: Self { .init(token: "Access-Control-Request-Headers") }
    public static var accessControlRequestMethod: Self { .init(token: "Access-Control-Request-Method") }
    public static var age: Self { .init(token: "Age") }
    public static var allow: Self { .init(token: "Allow") }
    public static var authenticationInfo: Self { .init(token: "Authentication-Info") }
    public static var authorization: Self { .init(token: "Authorization") }
    public static var cacheControl: Self { .init(token: "Cache-Control") }
    public static var connection: Self { .init(token: "Connection") }
    public static var contentDisposition: Self { .init(token: "Content-Disposition") }
    public static var contentEncoding: Self { .init(token: "Content-Encoding") }
    public static var contentLanguage: Self { .init(token: "Content-Language") }
    public static var contentLength: Self { .init(token: "Content-Length") }
    public static var contentLocation: Self { .init(token: "Content-Location") }
    public static var contentRange: Self { .init(token: "Content-Range") }
    public static var contentSecurityPolicy: Self { .init(token: "Content-Security-Policy") }
    public static var contentType: Self { .init(token: "Content-Type") }
    public static var cookie: Self { .init(token: "Cookie") }
    public static var date: Self { .init(token: "Date") }
    public static var eTag: Self { .init(token: "ETag") }
    public static var expect: Self { .init(token: "Expect") }
    public static var expires: Self { .init(token: "Expires") }
    public static var from: Self { .init(token: "From") }
    public static var host: Self { .init(token: "Host") }
    public static var ifMatch: Self { .init(token: "If-Match") }
    public static var ifModifiedSince: Self { .init(token: "If-Modified-Since") }
    public static var ifNoneMatch: Self { .init(token: "If-None-Match") }
    public static var ifRange: Self { .init(token: "If-Range") }
    public static var ifUnmodifiedSince: Self { .init(token: "If-Unmodified-Since") }
    public static var lastModified: Self { .init(token: "Last-Modified") }
    public static var location: Self { .init(token: "Location") }
    public static var maxForwards: Self { .init(token: "Max-Forwards") }
    public static var origin: Self { .init(token: "Origin") }
    public static var priority: Self { .init(token: "Priority") }
    public static var proxyAuthenticate: Self { .init(token: "Proxy-Authenticate") }
    public static var proxyAuthorization: Self { .init(token: "Proxy-Authorization") }
    public static var range: Self { .init(token: "Range") }
    public static var referer: Self { .init(token: "Referer") }
    public static var retryAfter: Self { .init(token: "Retry-After") }
    public static var server: Self { .init(token: "Server") }
    public static var setCookie: Self { .init(token: "Set-Cookie") }
    public static var strictTransportSecurity: Self { .init(token: "Strict-Transport-Security") }
    public static var te: Self { .init(token: "TE") }
    public static var traceparent: Self { .init(token: "traceparent") }
    public static var tracestate: Self { .init(token: "tracestate") }
    public static var trailer: Self { .init(token: "Trailer") }
    public static var transferEncoding: Self { .init(token: "Transfer-Encoding") }
    public static var upgrade: Self { .init(token: "Upgrade") }
    public static var userAgent: Self { .init(token: "User-Agent") }
    public static var vary: Self { .init(token: "Vary") }
    public static var via: Self { .init(token: "Via") }
    public static var wwwAuthenticate: Self { .init(token: "WWW-Authenticate") }
    public static var xContentTypeOptions: Self { .init(token: "X-Content-Type-Options") }
}

extension HTTPFields: ExpressibleByDictionaryLiteral {
    /// A list from literal pairs in order, as swift-http-types' `[.contentType: "text/plain"]`.
    public init(dictionaryLiteral elements: (HTTPField.Name, String)...) {
        self.init(elements.map { HTTPField(name: $0.0, value: $0.1) })
    }

    /// The values for `name` joined with ", " (with "; " for `Cookie`), or nil when absent.
    /// Setting a value replaces every field of that name with one (a `Cookie` value is split
    /// at "; " into one field per cookie); setting nil removes them.
    public subscript(name: HTTPField.Name) -> String? {
        get {
            let values = self[values: name]
            guard !values.isEmpty else { return nil }
            return values.joined(separator: name == .cookie ? "; " : ", ")
        }
        set {
            guard let newValue else { return self[fields: name] = [] }
            if name == .cookie {
                self[values: name] = newValue.split(separator: "; ", omittingEmptySubsequences: false).map(String.init)
            } else {
                self[fields: name] = [HTTPField(name: name, value: newValue)]
            }
        }
    }

    /// Every value for `name`, in order; setting replaces the fields of that name.
    public subscript(values name: HTTPField.Name) -> [String] {
        get { values(for: name.rawName) }
        set { self[fields: name] = newValue.map { HTTPField(name: name, value: $0) } }
    }

    /// Every field named `name`, in order. Setting puts the new fields where the first old
    /// one was (at the end when there was none) and removes the rest.
    public subscript(fields name: HTTPField.Name) -> [HTTPField] {
        get { storage.filter { $0.hasName(name.rawName) } }
        set {
            let position = storage.firstIndex { $0.hasName(name.rawName) } ?? storage.endIndex
            let before = storage[..<position]
            let after = storage[position...].filter { !$0.hasName(name.rawName) }
            storage = Array(before) + newValue + after
        }
    }

    /// Whether a field with this name is present.
    public func contains(_ name: HTTPField.Name) -> Bool { contains(name.rawName) }
}
