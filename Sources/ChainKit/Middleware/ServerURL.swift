public import Foundation

/// A variable of a server URL template in an OpenAPI document (swift-openapi-runtime's
/// `ServerVariable`), as generated clients pass them to
/// ``Foundation/URL/init(validatingOpenAPIServerURL:variables:)``.
public struct ServerVariable: Sendable, Hashable {
    public var name: String
    /// What replaces `{name}` in the template.
    public var value: String
    /// The values the document allows; nil allows any.
    public var allowedValues: [String]?

    public init(name: String, value: String, allowedValues: [String]? = nil) {
        self.name = name
        self.value = value
        self.allowedValues = allowedValues
    }
}

/// Why a server URL was refused, worded as swift-openapi-runtime words it.
public enum ServerURLError: Error, Hashable, CustomStringConvertible, LocalizedError {
    case invalidServerURL(String)
    case invalidServerVariableValue(name: String, value: String, allowedValues: [String])

    public var description: String {
        switch self {
        case .invalidServerURL(let string): "Invalid server URL: \(string)"
        case .invalidServerVariableValue(let name, let value, let allowedValues):
            "Invalid server variable named: '\(name)', which has the value: '\(value)', but the only allowed values are: "
                + allowedValues.map { "'\($0)'" }.joined(separator: ", ")
        }
    }

    public var errorDescription: String? { description }
}

extension URL {
    /// The URL `string` names; throws when it names none.
    public init(validatingOpenAPIServerURL string: String) throws {
        guard let url = URL(string: string) else { throw ServerURLError.invalidServerURL(string) }
        self = url
    }

    /// The URL of a server URL template with each `{name}` replaced by its variable's value;
    /// throws when a value is not one the variable allows, or the result names no URL.
    public init(validatingOpenAPIServerURL string: String, variables: [ServerVariable]) throws {
        var urlString = string
        for variable in variables {
            if let allowed = variable.allowedValues, !allowed.contains(variable.value) {
                throw ServerURLError.invalidServerVariableValue(name: variable.name, value: variable.value, allowedValues: allowed)
            }
            urlString = urlString.replacingOccurrences(of: "{\(variable.name)}", with: variable.value)
        }
        try self.init(validatingOpenAPIServerURL: urlString)
    }
}
