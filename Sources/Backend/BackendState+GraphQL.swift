import ChainKit
import Foundation

extension BackendState {
    /// `GET|POST /graphql`: authentication, then the APQ store, then the operation, found by
    /// `operationName` or else by the first operation the query text names.
    mutating func serveGraphQL(_ request: BackendRequest, query: Substring?, now: Double) -> BackendResponse {
        count(.graphqlRequests)
        if let refusal = authorize(request, now: now, graphQL: true) { return refusal }
        let parsed = request.method == "GET"
            ? GraphQLRequestParameters.parse(queryString: query ?? "")
            : GraphQLRequestParameters.parse(postBody: request.body, contentType: request.headers["Content-Type"])
        let parameters: GraphQLRequestParameters
        switch parsed {
        case .success(let read): parameters = read
        case .failure(let failure): return .graphQLError(failure.status, message: failure.message, code: "BAD_REQUEST")
        }

        var document = parameters.query
        if let hash = parameters.persistedQueryHash {
            if let query = document {
                guard SHA256Digest.hex(of: query) == hash else {
                    return .graphQLError(400, message: "provided sha does not match query", code: "BAD_REQUEST")
                }
                if persistedQueries.store(query, hash: hash) { count(.apqRegistered) }
            } else if let stored = persistedQueries[hash] {
                document = stored
            } else {
                count(.apqMisses)
                return .graphQLError(200, message: "PersistedQueryNotFound", code: "PERSISTED_QUERY_NOT_FOUND")
            }
        }
        // The lab knows its operations' documents, so a name alone is enough to run one.
        if document?.isEmpty ?? true, parameters.operationName == nil {
            return .graphQLError(
                400, message: "GraphQL operations must contain a non-empty `query` or a `persistedQuery` extension.",
                code: "BAD_REQUEST")
        }
        let defined = document.map(GraphQLOperationNames.of) ?? []
        guard let name = parameters.operationName ?? defined.first else {
            return .graphQLError(
                200, message: "the document defines no named operation and the request names none; send operationName",
                code: "GRAPHQL_VALIDATION_FAILED")
        }
        guard defined.isEmpty || defined.contains(name) else {
            return .graphQLError(200, message: "Unknown operation named \"\(name)\".", code: "GRAPHQL_VALIDATION_FAILED")
        }
        guard let operation = ServedOperation(rawValue: name) else {
            let known = ServedOperation.allCases.map(\.rawValue).sorted().joined(separator: ", ")
            return .graphQLError(
                200, message: "unknown operation \"\(name)\"; this server knows \(known)", code: "GRAPHQL_VALIDATION_FAILED")
        }
        if operation.kind == .mutation, request.method == "GET" {
            return .graphQLError(
                405, message: "Can only perform a mutation operation from a POST request.", code: "BAD_REQUEST",
                extraHeaders: [("Allow", "POST")])
        }
        return execute(operation, variables: parameters.variables, headers: request.headers)
    }

    /// `headers` are read only by the operations answered in parts (their `Accept`).
    private mutating func execute(_ operation: ServedOperation, variables: [String: JSONValue], headers: HTTPFields) -> BackendResponse {
        let hostile = settings.hostile, omitsName = settings.omitsHeroName
        switch operation {
        case .heroDeferQuery:
            guard let hero = heroes[HeroStore.heroID]?.json(hostile: hostile, appearsIn: true, omitsName: omitsName), case .object(var initial) = hero,
                let films = initial.removeValue(forKey: "appearsIn")
            else { return .json(200, ["data": ["hero": .null]]) }
            return IncrementalAnswers.deferred(
                initial: ["hero": .object(initial)], path: ["hero"], label: "films", fields: ["appearsIn": films], accept: headers["Accept"])
        case .heroNameChanged:
            return IncrementalAnswers.subscription(
                events: IncrementalAnswers.heroNames.map { ["heroNameChanged": ["id": .string(HeroStore.heroID), "name": .string($0)]] },
                accept: headers["Accept"])
        case .heroQuery:
            return .json(200, ["data": ["hero": heroes[HeroStore.heroID]?.json(hostile: hostile, omitsName: omitsName) ?? .null]])
        case .heroDetailsQuery:
            let id: String
            switch variables["id"] {
            case .string(let text): id = text
            case .number(let number) where number.rounded() == number && abs(number) < 1e15: id = String(Int64(number))
            case .exactNumber(let text) where Int64(text) != nil: id = text
            default: return missingVariable("id", type: "ID!")
            }
            return .json(200, ["data": ["hero": heroes[id]?.json(hostile: hostile, appearsIn: true, omitsName: omitsName) ?? .null]])
        case .renameHero:
            guard let newName = variables["name"]?.stringValue else { return missingVariable("name", type: "String!") }
            let hero = heroes.rename(id: HeroStore.heroID, to: newName)
            return .json(200, ["data": ["renameHero": hero?.json(hostile: hostile, omitsName: omitsName) ?? .null]])
        }
    }

    /// Apollo Server's answer to a variable that is absent or of the wrong type.
    private func missingVariable(_ name: String, type: String) -> BackendResponse {
        .graphQLError(400, message: "Variable \"$\(name)\" of required type \"\(type)\" was not provided.", code: "BAD_USER_INPUT")
    }
}
