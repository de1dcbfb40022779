public import Foundation
import Vocabulary

/// Reads one part of a multipart GraphQL answer: its header lines, then its JSON, split at
/// CRLF CRLF (Apollo iOS 2.4's `MultipartResponseSpecificationParser.swift`).
///
/// A part's header block may hold several header lines; only `Content-Type` is read, and
/// it must be `application/json` or `application/graphql-response+json`.
enum MultipartPart {
    enum Line {
        case contentType(String)
        case otherHeaders
        case json([String: JSONValue])
        case heartbeat
        case unknown
    }

    private static let separator: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A]
    static let supportedContentTypes: Set<String> = ["application/json", "application/graphql-response+json"]

    /// The part's lines in order, each read as what it is.
    static func lines(of part: Data) -> [Line] {
        let bytes = [UInt8](part)
        var lines: [Line] = []
        var start = 0
        var index = 0
        while index + separator.count <= bytes.count {
            if bytes[index..<(index + separator.count)].elementsEqual(separator) {
                lines.append(read(bytes[start..<index]))
                index += separator.count
                start = index
            } else {
                index += 1
            }
        }
        if start < bytes.count { lines.append(read(bytes[start...])) }
        return lines
    }

    private static func read(_ line: ArraySlice<UInt8>) -> Line {
        if line.elementsEqual([0x7B, 0x7D]) { return .heartbeat }
        if let text = String(bytes: line, encoding: .utf8), isHeaderBlock(text) {
            for header in text.split(separator: "\r\n") {
                guard let colon = header.firstIndex(of: ":") else { continue }
                guard header[..<colon].lowercased() == "content-type" else { continue }
                let value = header[header.index(after: colon)...].split(separator: ";", omittingEmptySubsequences: false).first ?? ""
                return .contentType(value.trimmingCharacters(in: .whitespaces))
            }
            return .otherHeaders
        }
        if case .object(let members)? = try? JSONValue(parsing: Data(line)) { return .json(members) }
        return .unknown
    }

    /// Whether `text` looks like header lines (`name: value`), not JSON.
    private static func isHeaderBlock(_ text: String) -> Bool {
        guard let first = text.split(separator: "\r\n").first, let colon = first.firstIndex(of: ":") else { return false }
        let name = first[..<colon]
        return !name.isEmpty && name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" }
    }
}

/// Reads the parts of a `deferSpec=20220824` answer (Apollo iOS 2.4's
/// `MultipartResponseDeferParser.swift`): each part is the initial payload (`data` and
/// `hasNext`) or a subsequent one (`incremental` and `hasNext`).
public enum MultipartResponseDeferParser {
    /// The specification a `Content-Type` names for this parser.
    public static let specification = "deferSpec=20220824"

    /// Why a part could not be read (upstream's cases).
    public enum ParsingError: Error, Equatable, CustomStringConvertible {
        case unsupportedContentType(type: String)
        case cannotParseChunkData
        case cannotParsePayloadData

        public var description: String {
            switch self {
            case .unsupportedContentType(let type):
                "a @defer part has Content-Type \(JSONValue.string(type).jsonString); application/json or application/graphql-response+json is required"
            case .cannotParseChunkData: "a @defer part is neither a header line nor a JSON object"
            case .cannotParsePayloadData: "a @defer part's JSON has neither data and hasNext nor incremental and hasNext"
            }
        }
    }

    /// The part's payload object; nil when the part holds only headers.
    public static func parse(part: Data) throws -> [String: JSONValue]? {
        for line in MultipartPart.lines(of: part) {
            switch line {
            case .contentType(let type):
                guard MultipartPart.supportedContentTypes.contains(type) else { throw ParsingError.unsupportedContentType(type: type) }
            case .otherHeaders:
                continue
            case .json(let object):
                guard object["hasNext"] != nil, object["data"] != nil || object["incremental"] != nil else {
                    throw ParsingError.cannotParsePayloadData
                }
                return object
            case .heartbeat:
                // `{}` is JSON without data or incremental.
                throw ParsingError.cannotParsePayloadData
            case .unknown:
                throw ParsingError.cannotParseChunkData
            }
        }
        return nil
    }
}

/// Reads the parts of a `subscriptionSpec=1.0` answer (Apollo iOS 2.4's
/// `MultipartResponseSubscriptionParser.swift`): `{"payload": {...}}` per event, `{}` as a
/// heartbeat, and top-level `errors` as a transport error that ends the subscription.
public enum MultipartResponseSubscriptionParser {
    /// The specification a `Content-Type` names for this parser.
    public static let specification = "subscriptionSpec=1.0"

    /// Why a part could not be read, or ended the subscription (upstream's cases).
    public enum ParsingError: Error, Equatable, CustomStringConvertible {
        case unsupportedContentType(type: String)
        case cannotParseChunkData
        case irrecoverableErrors([GraphQLError])
        case cannotParsePayloadData

        public var description: String {
            switch self {
            case .unsupportedContentType(let type):
                "a subscription part has Content-Type \(JSONValue.string(type).jsonString); application/json or application/graphql-response+json is required"
            case .cannotParseChunkData: "a subscription part is neither a header line, a heartbeat nor a JSON object"
            case .irrecoverableErrors(let errors):
                "the server ended the subscription with a transport error: " + VisibleEscapes.escape(errors.map(\.description).joined(separator: "; "))
            case .cannotParsePayloadData: "a subscription part's payload is not a JSON object"
            }
        }
    }

    /// The event's payload; nil for a heartbeat, a null payload or a part of headers only.
    public static func parse(part: Data) throws -> [String: JSONValue]? {
        for line in MultipartPart.lines(of: part) {
            switch line {
            case .heartbeat, .otherHeaders:
                continue
            case .contentType(let type):
                guard MultipartPart.supportedContentTypes.contains(type) else { throw ParsingError.unsupportedContentType(type: type) }
            case .json(let object):
                if let errors = object["errors"]?.arrayValue {
                    throw ParsingError.irrecoverableErrors(errors.compactMap(GraphQLError.init(json:)))
                }
                guard let payload = object["payload"], payload != .null else { return nil }
                guard case .object(let members) = payload else { throw ParsingError.cannotParsePayloadData }
                return members
            case .unknown:
                throw ParsingError.cannotParseChunkData
            }
        }
        return nil
    }
}
