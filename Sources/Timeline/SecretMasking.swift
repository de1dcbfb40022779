public import Wire
import Foundation
import Synchronization
import Vocabulary

/// Whether exports hide credentials. Every exporter takes one; `.masked` is what a trace
/// shared in a bug report should use.
///
/// Masked are the headers `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie`
/// (and headers named for a token, secret, password, API key, session or credential, or
/// named with ``maskHeader(named:)``), and in bodies and URL queries every JSON field or form
/// key named for a token, password, secret or API key (ignoring case). A masked value keeps
/// its scheme (or cookie name) and its last 4 characters, enough to tell two tokens apart
/// without being able to use one; a Basic credential is masked whole, as its end is the end
/// of the password:
///
/// ```swift
/// SecretMasking.masked.header(name: "authorization", value: "Bearer abcdefa1f3")
/// // "Bearer ••••a1f3"
/// SecretMasking.masked.body("grant_type=refresh_token&refresh_token=abc", contentType: nil)
/// // "grant_type=refresh_token&refresh_token=••••"
/// ```
///
/// A server may echo a credential where no name says it is one (an error message, a
/// `WWW-Authenticate` parameter, a header of its own, a `Location`): a masking that
/// ``knowing(secretsIn:)`` a timeline also hides every occurrence of each credential the
/// timeline sent, wherever it appears. The exports of whole timelines do that themselves.
public struct SecretMasking: Sendable, Hashable {
    /// Whether anything is hidden.
    public let isMasked: Bool
    /// Credentials hidden wherever they appear, longest first (so a secret that holds
    /// another is hidden whole).
    private let known: [String]

    public static let masked = SecretMasking(isMasked: true, known: [])
    public static let revealed = SecretMasking(isMasked: false, known: [])

    private init(isMasked: Bool, known: [String]) {
        self.isMasked = isMasked
        self.known = known
    }

    /// What replaces the hidden part of a value.
    public static let bullets = "••••"

    /// The shortest credential hidden by its value alone: a shorter one would hide ordinary words.
    public static let shortestKnownSecret = 8

    /// Header names given with `--mask-header` (lowercased), masked like `Authorization`.
    private static let maskedHeaderNames = Mutex<Set<String>>([])

    /// Masks values of the header `name` (any case) from now on, in every view and export.
    public static func maskHeader(named name: String) {
        let lowered = HeaderDiff.lowercased(name)
        maskedHeaderNames.withLock { _ = $0.insert(lowered) }
    }

    /// Whether values of this header are credentials: the standard ones, any whose name
    /// says it carries a token, secret, password, API key, session or credential (the
    /// `X-Api-Key` or `X-Auth-Token` a user adds with `--header`), and those named with
    /// ``maskHeader(named:)``.
    public static func isSecretHeader(_ name: String) -> Bool {
        let lowered = HeaderDiff.lowercased(name)
        switch lowered {
        case "authorization", "proxy-authorization", "cookie", "set-cookie": return true
        default:
            return ["token", "secret", "password", "api-key", "apikey", "api_key", "session", "credential"].contains { lowered.contains($0) }
                || maskedHeaderNames.withLock { $0.contains(lowered) }
        }
    }

    /// This masking, also hiding every occurrence of the credentials `events` carry: the
    /// values of their secret headers (a Basic credential's password too), cookies, and
    /// secret query parameters and form fields, of at least ``shortestKnownSecret`` characters.
    public func knowing(secretsIn events: some Sequence<TimelineEvent>) -> SecretMasking {
        guard isMasked else { return self }
        var found = Set(known)
        for event in events {
            if let headers = event.headers {
                for field in headers where Self.isSecretHeader(field.name) { Self.credentials(inHeader: field.name, value: field.value, into: &found) }
            }
            if let url = event.url, let query = url.firstIndex(of: "?") {
                Self.credentials(inForm: url[url.index(after: query)...].prefix { $0 != "#" }, into: &found)
            }
            if event.headers?["Content-Type"]?.lowercased().contains("application/x-www-form-urlencoded") == true, let body = event.body {
                Self.credentials(inForm: Substring(body.text), into: &found)
            }
        }
        let known = found.filter { $0.count >= Self.shortestKnownSecret }.sorted { ($0.count, $0) > ($1.count, $1) }
        return SecretMasking(isMasked: true, known: known)
    }

    private static func credentials(inHeader name: String, value: String, into found: inout Set<String>) {
        switch HeaderDiff.lowercased(name) {
        case "cookie", "set-cookie":
            for pair in value.split(whereSeparator: { $0 == ";" || $0 == "," }) {
                let name = pair.prefix { $0 != "=" }.trimmingCharacters(in: .whitespaces).lowercased()
                guard !cookieAttributes.contains(name) else { continue }
                let value = pair.drop { $0 != "=" }.dropFirst().trimmingCharacters(in: .whitespaces)
                if !value.isEmpty { found.insert(value) }
            }
        default:
            let credential = value.drop { $0 != " " }.drop { $0 == " " }
            let whole = credential.isEmpty ? value.trimmingCharacters(in: .whitespaces) : String(credential)
            found.insert(whole)
            if value.lowercased().hasPrefix("basic "), let decoded = Data(base64Encoded: whole).map({ String(decoding: $0, as: UTF8.self) }),
                let colon = decoded.firstIndex(of: ":") {
                found.insert(String(decoded[decoded.index(after: colon)...]))
            }
        }
    }

    /// `Set-Cookie` attributes (RFC 6265 §4.1, and those browsers added): not cookies.
    private static let cookieAttributes: Set<String> = ["expires", "max-age", "domain", "path", "secure", "httponly", "samesite", "partitioned", "priority"]

    private static func credentials(inForm form: Substring, into found: inout Set<String>) {
        for part in form.split(separator: "&") {
            guard let equals = part.firstIndex(of: "="), isSecretField(decodedName(String(part[..<equals]))) else { continue }
            let value = String(part[part.index(after: equals)...])
            found.insert(value)
            found.insert(decodedName(value))
        }
    }

    /// `text` with every known credential, as written or percent-encoded, replaced by its mask.
    private func hidingKnown(_ text: String) -> String {
        var text = text
        for secret in known {
            guard text.count >= secret.count else { continue }
            text = text.replacingOccurrences(of: secret, with: Self.mask(secret))
            if let encoded = secret.addingPercentEncoding(withAllowedCharacters: Self.unreserved), encoded != secret {
                text = text.replacingOccurrences(of: encoded, with: Self.mask(secret))
            }
        }
        return text
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// Whether a JSON field or form key with this name holds a credential.
    public static func isSecretField(_ name: String) -> Bool {
        let name = name.lowercased()
        // OAuth's token_type ("Bearer") names a scheme, not a credential.
        if name == "token_type" { return false }
        return name.contains("token") || name.contains("password") || name.contains("secret")
            || ["api_key", "apikey", "api-key", "access_key", "accesskey"].contains { name.contains($0) }
            || ["key", "sig", "signature"].contains(name)
    }

    /// `••••` followed by the last 4 characters, or just `••••` for 4 characters or fewer.
    public static func mask(_ secret: String) -> String {
        secret.count <= 4 ? bullets : bullets + secret.suffix(4)
    }

    /// The header value to show.
    public func header(name: String, value: String) -> String {
        guard isMasked else { return value }
        guard SecretMasking.isSecretHeader(name) else { return hidingKnown(value) }
        switch HeaderDiff.lowercased(name) {
        case "cookie":
            return value.split(separator: ";", omittingEmptySubsequences: false)
                .map { SecretMasking.maskPair(String($0)) }
                .joined(separator: ";")
        case "set-cookie":
            return SecretMasking.maskSetCookie(value)
        default:
            return SecretMasking.maskCredentials(value)
        }
    }

    /// Only the cookies themselves are secret; attributes such as Path and HttpOnly stay.
    /// Several `Set-Cookie` fields may arrive joined with ", " (as URLSession joins them): each
    /// cookie after a comma is masked too (an `Expires` date's comma is followed by no `=`).
    private static func maskSetCookie(_ value: String) -> String {
        var out = ""
        var rest = Substring(value)
        var startsCookie = true
        while !rest.isEmpty {
            let segment = rest.prefix { $0 != ";" && $0 != "," }
            rest = rest.dropFirst(segment.count)
            let trimmed = segment.drop { $0 == " " }
            let isCookie = startsCookie && (out.isEmpty || trimmed.contains("="))
            out += isCookie ? String(segment.prefix(segment.count - trimmed.count)) + maskPair(String(trimmed)) : String(segment)
            guard let separator = rest.first else { break }
            out.append(separator)
            rest = rest.dropFirst()
            // After a comma a new cookie starts when a `name=` comes before the next space.
            startsCookie = separator == "," && rest.drop { $0 == " " }.prefix { $0 != " " && $0 != ";" }.contains("=")
        }
        return out
    }

    /// Every header as a name and the value to show, in order.
    public func headers(_ fields: HTTPFields) -> [(name: String, value: String)] {
        fields.map { ($0.name, header(name: $0.name, value: $0.value)) }
    }

    /// The body text to show. Form bodies are recognised by their content type or, without
    /// one, by their shape; JSON by a leading `{` or `[`. JSON is masked lexically, so key order
    /// and spacing stay as sent and a preview cut mid-document is still masked.
    public func body(_ text: String, contentType: String?) -> String {
        guard isMasked else { return text }
        let type = contentType?.lowercased() ?? ""
        if type.contains("application/x-www-form-urlencoded") { return hidingKnown(SecretMasking.maskForm(text)) }
        if let first = text.unicodeScalars.first(where: { !" \t\r\n".unicodeScalars.contains($0) }), first == "{" || first == "[" {
            // A JSON string may quote a URL, a form or a header (a variable, a cache key with
            // its arguments): masked as free text, beside the fields named for secrets.
            return self.text(text)
        }
        if contentType == nil, text.contains("="), !text.contains(where: \.isWhitespace) {
            return hidingKnown(SecretMasking.maskForm(text))
        }
        return hidingKnown(text)
    }

    /// The URL to show, with secret query parameters (`?access_token=…`) masked.
    public func url(_ url: String) -> String {
        guard isMasked else { return url }
        guard let question = url.firstIndex(of: "?") else { return hidingKnown(url) }
        let queryStart = url.index(after: question)
        let queryEnd = url[queryStart...].firstIndex(of: "#") ?? url.endIndex
        return hidingKnown(String(url[..<queryStart]) + SecretMasking.maskForm(String(url[queryStart..<queryEnd])) + url[queryEnd...])
    }

    /// Free text that may quote a URL, a form, a JSON document or a header — a log line, an
    /// event's detail, an error message — with the secrets in it masked: the value of every
    /// `name=value` pair and JSON field whose name is a secret (judged percent-decoded and
    /// in any case, so `access%5Ftoken` and `PassWord` count) and the credentials after
    /// `Bearer` or `Basic`.
    ///
    /// ```swift
    /// SecretMasking.masked.text("GET /heroes?access%5Ftoken=abcdefgh&x=1")
    /// // "GET /heroes?access%5Ftoken=••••efgh&x=1"
    /// ```
    public func text(_ text: String) -> String {
        guard isMasked else { return text }
        var masked = text.contains("\"") ? SecretMasking.maskJSON(text) : text
        if masked.contains("=") { masked = SecretMasking.maskPairs(masked) }
        return hidingKnown(SecretMasking.maskSchemes(masked))
    }

    /// Characters that end a key or a value in free text.
    private static let pairDelimiters: Set<Character> = [" ", "\t", "\n", "\r", "?", "&", ";", ",", "(", ")", "\"", "'", "<", ">", "{", "}", "[", "]", "#", "|"]

    /// `… name=value …` → `… name=••••alue …` for secret names, anywhere in the text.
    private static func maskPairs(_ text: String) -> String {
        let characters = Array(text)
        var out = ""
        out.reserveCapacity(text.utf8.count)
        var index = 0
        var keyStart = 0
        while index < characters.count {
            let character = characters[index]
            if pairDelimiters.contains(character) || character == "=" && index == keyStart {
                keyStart = index + 1
            } else if character == "=" {
                let key = String(characters[keyStart..<index])
                var end = index + 1
                while end < characters.count, !pairDelimiters.contains(characters[end]) { end += 1 }
                out.append("=")
                let value = String(characters[(index + 1)..<end])
                if !value.isEmpty, !value.hasPrefix(bullets), isSecretField(decodedName(key)) {
                    out += mask(value)
                } else {
                    out += value
                }
                index = end
                keyStart = end
                continue
            }
            out.append(character)
            index += 1
        }
        return out
    }

    /// The shortest credential after `Basic` taken for one, so a sentence saying "basic"
    /// stays readable.
    private static let basicMinimum = 8

    /// `Bearer abcdef` → `Bearer ••••cdef`, in any case, anywhere in the text; `Basic`
    /// followed by a credential (``basicMinimum``) → `Basic ••••`.
    private static func maskSchemes(_ text: String) -> String {
        guard text.range(of: "bearer ", options: .caseInsensitive) != nil || text.range(of: "basic ", options: .caseInsensitive) != nil else { return text }
        let words = text.split(separator: " ", omittingEmptySubsequences: false)
        var out: [String] = []
        var minimumLength: Int?
        for word in words {
            if let minimum = minimumLength, !word.isEmpty {
                minimumLength = nil
                let credential = word.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || "-._~+/=".contains($0)) }
                if credential.count >= minimum {
                    out.append((minimum == basicMinimum ? bullets : mask(String(credential))) + word[credential.endIndex...])
                    continue
                }
            }
            let lowered = word.lowercased()
            for (scheme, minimum) in [("bearer", 1), ("basic", basicMinimum)] where lowered.hasSuffix(scheme) {
                if lowered == scheme || !lowered.dropLast(scheme.count).last!.isLetter { minimumLength = minimum }
            }
            out.append(String(word))
        }
        return out.joined(separator: " ")
    }

    /// A form or query key as a server reads it: `+` is a space and `%XX` escapes are
    /// decoded, again while that changes it (`pass%2577ord`); invalid escapes stay as written.
    static func decodedName(_ key: String) -> String {
        var name = key.replacingOccurrences(of: "+", with: " ")
        for _ in 0..<3 {
            let decoded = decodePercentEscapes(name)
            if decoded == name { break }
            name = decoded
        }
        return name
    }

    private static func decodePercentEscapes(_ text: String) -> String {
        guard text.contains("%") else { return text }
        var bytes: [UInt8] = []
        let utf8 = Array(text.utf8)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "%"), index + 2 < utf8.count,
                let high = HTTPSyntax.hexDigitValue(utf8[index + 1]), let low = HTTPSyntax.hexDigitValue(utf8[index + 2]) {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `Bearer abcdefa1f3` → `Bearer ••••a1f3`, `Basic dXNlcjpwdw==` → `Basic ••••`; a value
    /// without a space is all credential.
    private static func maskCredentials(_ value: String) -> String {
        guard let space = value.firstIndex(of: " ") else { return mask(value) }
        let credentials = value[space...].drop { $0 == " " }
        let scheme = value[..<credentials.startIndex]
        return String(scheme) + (scheme.lowercased().hasPrefix("basic ") ? bullets : mask(String(credentials)))
    }

    /// ` name=value` → ` name=••••alue`, keeping the spacing around the pair.
    private static func maskPair(_ pair: String) -> String {
        guard let equals = pair.firstIndex(of: "=") else { return pair.isEmpty ? pair : mask(pair) }
        let value = pair[pair.index(after: equals)...]
        let trailing = value.reversed().prefix { $0 == " " }.count
        return String(pair[...equals]) + mask(String(value.dropLast(trailing))) + String(repeating: " ", count: trailing)
    }

    /// `a=1&refresh_token=abc` → `a=1&refresh_token=••••`: keys are judged decoded, values
    /// are masked as written.
    private static func maskForm(_ text: String) -> String {
        text.split(separator: "&", omittingEmptySubsequences: false).map { part -> String in
            guard let equals = part.firstIndex(of: "=") else { return String(part) }
            let key = String(part[..<equals])
            guard isSecretField(decodedName(key)) else { return String(part) }
            return String(part[...equals]) + mask(String(part[part.index(after: equals)...]))
        }.joined(separator: "&")
    }

    /// Masks the string and number values of secret-named keys, copying every other byte.
    private static func maskJSON(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var valueIsSecret = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let end = endOfString(bytes, from: index)
                let token = Array(bytes[index..<end])
                if valueIsSecret {
                    out += maskedJSONString(decodeString(token))
                    valueIsSecret = false
                } else {
                    out += token
                    var next = end
                    while next < bytes.count, isJSONWhitespace(bytes[next]) { next += 1 }
                    if next < bytes.count, bytes[next] == UInt8(ascii: ":") { valueIsSecret = isSecretField(decodeString(token)) }
                }
                index = end
            } else if valueIsSecret, byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                var end = index
                while end < bytes.count, !isJSONWhitespace(bytes[end]), !",}]".utf8.contains(bytes[end]) { end += 1 }
                out += maskedJSONString(String(decoding: bytes[index..<end], as: UTF8.self))
                valueIsSecret = false
                index = end
            } else {
                // Objects, arrays and literals under a secret name are not themselves secrets;
                // keys inside an object are judged one by one.
                if valueIsSecret, byte != UInt8(ascii: ":"), !isJSONWhitespace(byte) { valueIsSecret = false }
                out.append(byte)
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// The index just past the string token starting at `start`, or the end of a cut preview.
    private static func endOfString(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        return bytes.count
    }

    /// The text of a string token; a token cut off by a preview is taken as written.
    private static func decodeString(_ token: [UInt8]) -> String {
        if let value = try? JSONParser.parse(token).stringValue { return value }
        return String(decoding: token.dropFirst(), as: UTF8.self)
    }

    private static func maskedJSONString(_ value: String) -> [UInt8] {
        var out = ""
        JSONValue.writeString(mask(value), into: &out)
        return Array(out.utf8)
    }
}
