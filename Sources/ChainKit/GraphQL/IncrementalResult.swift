/// Why an incremental (`@defer`) payload could not be merged into the result before it
/// (Apollo iOS 2.4's `IncrementalResponseError` in `IncrementalResponseExecutionHandler.swift`
/// and `DataDict.MergeError` in `DataDict+Merging.swift`).
public enum IncrementalResponseError: Error, Equatable, CustomStringConvertible {
    /// An `incremental` payload arrived before the initial one.
    case missingExistingData
    /// An incremental item has no `path` array.
    case missingPath
    /// An incremental item has no `label` string.
    case missingLabel
    /// The item's `path` is empty.
    case emptyMergePath
    /// A path component leads into a value that is neither an object nor a list.
    case dataTypeNotAccessibleByPathComponent(JSONValue)
    /// A name used on a list, or an index on an object.
    case invalidPathComponentForDataType(JSONValue, String)
    /// A name the object does not have, or an index past the end of the list.
    case cannotFindPathComponent(JSONValue)
    /// The path ends at something other than an object.
    case incrementalMergeNeedsObject
    /// The item sets a field the result already has to a different value.
    case cannotOverwriteFieldData(field: String, current: JSONValue, new: JSONValue)

    public var description: String {
        switch self {
        case .missingExistingData: "an incremental payload arrived before the initial payload it completes"
        case .missingPath: "an incremental item has no \"path\""
        case .missingLabel: "an incremental item has no \"label\""
        case .emptyMergePath: "an incremental item's path is empty"
        case .dataTypeNotAccessibleByPathComponent(let component):
            "the incremental path leads through \(component.jsonString), which is neither an object nor a list"
        case .invalidPathComponentForDataType(let component, let type):
            "the incremental path component \(component.jsonString) cannot index a \(type)"
        case .cannotFindPathComponent(let component):
            "the incremental path component \(component.jsonString) is not in the result (unknown field or index out of range)"
        case .incrementalMergeNeedsObject: "the incremental path does not end at an object"
        case .cannotOverwriteFieldData(let field, let current, let new):
            "the incremental item would change \(JSONValue.string(field).jsonString) from \(current.jsonString) to \(new.jsonString)"
        }
    }
}

extension ChainResponse {
    /// This result with a subsequent payload's `incremental` items merged in, as upstream's
    /// `ChainResponse.merging(_:)` does: each item's `data` joins the object at its `path`
    /// (a field already there must keep its value), its `errors` are appended and its
    /// `extensions` replace keys of the same name.
    public func merging(incremental items: [JSONValue]) throws -> ChainResponse {
        var merged = self
        for item in items {
            guard let path = item["path"]?.arrayValue else { throw IncrementalResponseError.missingPath }
            guard item["label"]?.stringValue != nil else { throw IncrementalResponseError.missingLabel }
            guard !path.isEmpty else { throw IncrementalResponseError.emptyMergePath }
            if let data = item["data"]?.objectValue {
                if let current = merged.data {
                    merged.data = try Self.merge(data, into: current, at: path[...])
                } else {
                    merged.data = .object(data)
                }
            }
            if let errors = item["errors"]?.arrayValue?.compactMap(GraphQLError.init(json:)) {
                merged.errors = (merged.errors ?? []) + errors
            }
            if let extensions = item["extensions"]?.objectValue {
                merged.extensions = (merged.extensions ?? [:]).merging(extensions) { _, new in new }
            }
        }
        return merged
    }

    private static func merge(_ fields: [String: JSONValue], into value: JSONValue, at path: ArraySlice<JSONValue>) throws -> JSONValue {
        guard let head = path.first else {
            guard case .object(var object) = value else { throw IncrementalResponseError.incrementalMergeNeedsObject }
            for (key, new) in fields {
                if let current = object[key], current != new {
                    throw IncrementalResponseError.cannotOverwriteFieldData(field: key, current: current, new: new)
                }
                object[key] = new
            }
            return .object(object)
        }
        let rest = path.dropFirst()
        switch value {
        case .object(var object):
            guard case .string(let key) = head else { throw IncrementalResponseError.invalidPathComponentForDataType(head, "object") }
            guard let child = object[key] else { throw IncrementalResponseError.cannotFindPathComponent(head) }
            try checkAccessible(child, by: head, more: !rest.isEmpty)
            object[key] = try merge(fields, into: child, at: rest)
            return .object(object)
        case .array(var list):
            guard case .number(let number) = head, let index = Int(exactly: number) else {
                throw IncrementalResponseError.invalidPathComponentForDataType(head, "list")
            }
            guard list.indices.contains(index) else { throw IncrementalResponseError.cannotFindPathComponent(head) }
            try checkAccessible(list[index], by: head, more: !rest.isEmpty)
            list[index] = try merge(fields, into: list[index], at: rest)
            return .array(list)
        default:
            throw IncrementalResponseError.dataTypeNotAccessibleByPathComponent(head)
        }
    }

    /// Upstream names the component that led into a scalar when the path goes on past it.
    private static func checkAccessible(_ child: JSONValue, by component: JSONValue, more: Bool) throws {
        guard more else { return }
        switch child {
        case .object, .array: return
        default: throw IncrementalResponseError.dataTypeNotAccessibleByPathComponent(component)
        }
    }
}
