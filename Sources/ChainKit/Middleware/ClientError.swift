public import Foundation

/// An error from a ``MiddlewareStack`` call, with the context needed to tell which layer
/// failed and for which request.
///
/// The stack wraps every error exactly once: a ``ClientError`` thrown by a lower layer passes
/// through the layers above it unchanged, so ``causeDescription`` always names the layer
/// where the failure started.
///
/// ```
/// Client error - cause description: 'Transport threw an error.', underlying error: the
/// connection was reset by the peer (injected fault), operationID: listPets, operationInput:
/// GET /pets [Accept: application/json], body: <nil>, request: GET /pets
/// [Accept: application/json], requestBody: <nil>, baseURL: https://api.example.com,
/// response: <nil>, responseBody: <nil>
/// ```
public struct ClientError: Error, CustomStringConvertible, LocalizedError {
    /// The operation the call was made for.
    public var operationID: String
    /// The operation's input as the caller gave it (``HTTPOperationInput`` for a raw request).
    public var operationInput: any Sendable
    /// The request as the serializer made it, before any middleware changed it; nil when the
    /// serializer failed.
    public var request: HTTPRequest?
    /// The request body as it was given to the stack.
    public var requestBody: HTTPBody?
    /// The base URL as it was given to the stack.
    public var baseURL: URL?
    /// The response, when the deserializer failed on it; nil for earlier phases.
    public var response: HTTPResponse?
    /// The response body the deserializer failed on; nil for earlier phases.
    public var responseBody: HTTPBody?
    /// Which phase failed: `Middleware of type 'X' threw an error.`, `Transport threw an
    /// error.`, or `Unknown` for the serializer and the deserializer.
    public var causeDescription: String
    /// The error the failing layer threw.
    public var underlyingError: any Error

    public init(
        operationID: String,
        operationInput: any Sendable,
        request: HTTPRequest? = nil,
        requestBody: HTTPBody? = nil,
        baseURL: URL? = nil,
        response: HTTPResponse? = nil,
        responseBody: HTTPBody? = nil,
        causeDescription: String,
        underlyingError: any Error
    ) {
        self.operationID = operationID
        self.operationInput = operationInput
        self.request = request
        self.requestBody = requestBody
        self.baseURL = baseURL
        self.response = response
        self.responseBody = responseBody
        self.causeDescription = causeDescription
        self.underlyingError = underlyingError
    }

    public var description: String {
        "Client error - cause description: '\(causeDescription)', "
            + "underlying error: \(underlyingError), "
            + "operationID: \(operationID), "
            + "operationInput: \(String(describing: operationInput)), "
            + "request: \(request.map(Self.describe) ?? "<nil>"), "
            + "requestBody: \(requestBody.map(Self.describe) ?? "<nil>"), "
            + "baseURL: \(baseURL?.absoluteString ?? "<nil>"), "
            + "response: \(response.map(Self.describe) ?? "<nil>"), "
            + "responseBody: \(responseBody.map(Self.describe) ?? "<nil>")"
    }

    /// Upstream's localized description.
    public var errorDescription: String? {
        "Client encountered an error invoking the operation \"\(operationID)\", caused by \"\(causeDescription)\", underlying error: \(underlyingError)."
    }

    /// Header values that must not end up in logs through an error message.
    private static let secretFieldNames = ["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie"]

    private static func describe(_ fields: HTTPFields) -> String {
        let lines = fields.map { field in
            let isSecret = secretFieldNames.contains { field.hasName($0) }
            return "\(field.name): \(isSecret ? "<redacted>" : field.value)"
        }
        return "[" + lines.joined(separator: "; ") + "]"
    }

    static func describe(_ request: HTTPRequest) -> String {
        "\(request.method) \(request.path ?? "") \(describe(request.headerFields))"
    }

    private static func describe(_ response: HTTPResponse) -> String {
        "\(response.status.code) \(describe(response.headerFields))"
    }

    static func describe(_ body: HTTPBody) -> String {
        let length = switch body.length {
        case .known(let count): count == 1 ? "1 byte" : "\(count) bytes"
        case .unknown: "unknown length"
        }
        let iteration = switch body.iterationBehavior {
        case .single: "single-pass"
        case .multiple: "replayable"
        }
        return "HTTPBody(\(length), \(iteration))"
    }
}
