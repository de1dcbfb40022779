/// An operation known only at run time (a scenario file's, `--operation FILE`'s), as an
/// ApolloAPI-shaped operation.
///
/// Its static members (`operationName`, `operationType`, `operationDocument`) answer for the
/// operation whose request is running in the current task: the chain runs each request of
/// a loaded operation inside ``withCurrent(_:operation:)``, so an interceptor that reads
/// `Request.Operation.operationName` gets the loaded operation's own name.
public struct LoadedOperation: GraphQLOperation {
    public typealias Data = JSONData

    @TaskLocal static var current: ChainOperation?

    /// What the operation is.
    public let operation: ChainOperation

    public init(_ operation: ChainOperation) {
        self.operation = operation
    }

    /// Runs `body` with this operation as the one the static members answer for.
    public func withCurrent<T: Sendable>(_ body: () async throws -> T) async rethrows -> T {
        try await LoadedOperation.$current.withValue(operation, operation: body)
    }

    public static var operationName: String { current?.name ?? "LoadedOperation" }

    public static var operationType: GraphQLOperationType {
        switch current?.kind {
        case .mutation: .mutation
        case .subscription: .subscription
        case .query, nil: .query
        }
    }

    public static var operationDocument: OperationDocument {
        guard let current else { return OperationDocument(definition: OperationDefinition("")) }
        if let identifier = current.persistedOnlyIdentifier { return OperationDocument(operationIdentifier: identifier) }
        return OperationDocument(definition: OperationDefinition(current.document))
    }

    public var __variables: Variables? { operation.variables?.mapValues { $0 as any GraphQLOperationVariableValue } }

    public var chainOperation: ChainOperation { operation }

    public static func == (lhs: LoadedOperation, rhs: LoadedOperation) -> Bool { lhs.operation == rhs.operation }
    public func hash(into hasher: inout Hasher) { hasher.combine(operation) }
}
