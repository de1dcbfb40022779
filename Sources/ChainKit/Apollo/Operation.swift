import Foundation

// The operation types of ApolloAPI 2.4 (`Sources/ApolloAPI/GraphQLOperation.swift`), so an
// operation written for Apollo compiles against ChainKit. A hand-written operation needs only
// its name and document; its `Data` is then the JSON object the server sent (``JSONData``).

/// Query, mutation or subscription (ApolloAPI's `GraphQLOperationType`).
public enum GraphQLOperationType: Sendable, Hashable {
    case query
    case mutation
    case subscription
}

/// How an operation reaches the server: its document, an identifier the server knows it by,
/// or both (ApolloAPI's `OperationDocument`).
public struct OperationDocument: Sendable {
    public let operationIdentifier: String?
    public let definition: OperationDefinition?

    public init(operationIdentifier: String? = nil, definition: OperationDefinition? = nil) {
        precondition(operationIdentifier != nil || definition != nil, "an OperationDocument needs an identifier or a definition")
        self.operationIdentifier = operationIdentifier
        self.definition = definition
    }
}

/// An operation's document text (ApolloAPI's `OperationDefinition`).
public struct OperationDefinition: Sendable {
    let operationDefinition: String

    public init(_ definition: String) {
        self.operationDefinition = definition
    }

    /// The text sent as `query`.
    public var queryDocument: String { operationDefinition }
}

/// What an operation's result decodes into (ApolloAPI's `RootSelectionSet`): made from the
/// JSON object the server sent for `data`, and giving it back.
public protocol RootSelectionSet: Sendable, Hashable {
    /// The JSON object this selection set was made from.
    var __data: [String: JSONValue] { get }
    init(_jsonObject: [String: JSONValue]) throws
}

/// The `Data` of an operation that declares none: the JSON object the server sent, read by
/// member (`data.hero?["name"]`) or subscript.
@dynamicMemberLookup
public struct JSONData: RootSelectionSet, CustomStringConvertible {
    public let __data: [String: JSONValue]

    public init(_jsonObject: [String: JSONValue]) {
        self.__data = _jsonObject
    }

    public subscript(dynamicMember member: String) -> JSONValue? { __data[member] }
    public subscript(key: String) -> JSONValue? { __data[key] }

    public var description: String { JSONValue.object(__data).jsonString }
}

/// A value an operation's variables can hold (ApolloAPI's `GraphQLOperationVariableValue`).
public protocol GraphQLOperationVariableValue: Sendable {
    /// The value as JSON; nil leaves the variable out of the request.
    var _jsonEncodableValue: JSONValue? { get }
}

extension String: GraphQLOperationVariableValue { public var _jsonEncodableValue: JSONValue? { .string(self) } }
extension Int: GraphQLOperationVariableValue { public var _jsonEncodableValue: JSONValue? { .number(Double(self)) } }
extension Double: GraphQLOperationVariableValue { public var _jsonEncodableValue: JSONValue? { .number(self) } }
extension Bool: GraphQLOperationVariableValue { public var _jsonEncodableValue: JSONValue? { .bool(self) } }
extension JSONValue: GraphQLOperationVariableValue { public var _jsonEncodableValue: JSONValue? { self } }

extension Optional: GraphQLOperationVariableValue where Wrapped: GraphQLOperationVariableValue {
    public var _jsonEncodableValue: JSONValue? { self?._jsonEncodableValue }
}

extension Array: GraphQLOperationVariableValue where Element: GraphQLOperationVariableValue {
    public var _jsonEncodableValue: JSONValue? { .array(map { $0._jsonEncodableValue ?? .null }) }
}

extension Dictionary: GraphQLOperationVariableValue where Key == String, Value == any GraphQLOperationVariableValue {
    public var _jsonEncodableValue: JSONValue? { .object(compactMapValues { $0._jsonEncodableValue }) }
}

/// A GraphQL operation as ApolloAPI 2.4 declares one: static name, type and document,
/// instance variables, and the type its data decodes into.
///
/// ```swift
/// struct HeroQuery: GraphQLQuery {
///     static let operationName = "HeroQuery"
///     static let operationDocument = OperationDocument(definition: OperationDefinition("query HeroQuery { hero { id name } }"))
/// }
/// ```
public protocol GraphQLOperation: Sendable, Hashable {
    typealias Variables = [String: any GraphQLOperationVariableValue]

    static var operationName: String { get }
    static var operationType: GraphQLOperationType { get }
    static var operationDocument: OperationDocument { get }

    var __variables: Variables? { get }

    associatedtype Data: RootSelectionSet = JSONData

    /// This operation as the lab's chain engine describes one. An operation made at run time
    /// (``LoadedOperation``) answers with its own; a compiled one with its static members.
    var chainOperation: ChainOperation { get }
}

extension GraphQLOperation {
    public static var definition: OperationDefinition? { operationDocument.definition }
    public static var operationIdentifier: String? { operationDocument.operationIdentifier }

    public var __variables: Variables? { nil }

    /// The variables as a JSON object, or nil when the operation has none.
    public var variablesJSON: [String: JSONValue]? {
        __variables.map { $0.compactMapValues { $0._jsonEncodableValue } }
    }

    public var chainOperation: ChainOperation {
        let kind: ChainOperation.Kind = switch Self.operationType {
        case .query: .query
        case .mutation: .mutation
        case .subscription: .subscription
        }
        if let definition = Self.definition {
            return ChainOperation(name: Self.operationName, kind: kind, document: definition.queryDocument, variables: variablesJSON)
        }
        return ChainOperation(
            name: Self.operationName, kind: kind, persistedOnlyIdentifier: Self.operationIdentifier ?? "", variables: variablesJSON)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.variablesJSON == rhs.variablesJSON }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(Self.operationName)
        hasher.combine(variablesJSON)
    }
}

/// A query (ApolloAPI's `GraphQLQuery`).
public protocol GraphQLQuery: GraphQLOperation {}
extension GraphQLQuery {
    public static var operationType: GraphQLOperationType { .query }
}

/// A mutation (ApolloAPI's `GraphQLMutation`).
public protocol GraphQLMutation: GraphQLOperation {}
extension GraphQLMutation {
    public static var operationType: GraphQLOperationType { .mutation }
}

/// A subscription (ApolloAPI's `GraphQLSubscription`).
public protocol GraphQLSubscription: GraphQLOperation {}
extension GraphQLSubscription {
    public static var operationType: GraphQLOperationType { .subscription }
}
