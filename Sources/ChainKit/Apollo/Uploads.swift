public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

// File uploads as Apollo iOS 2.4 sends them (`Sources/Apollo/GraphQLFile.swift`,
// `MultipartFormData.swift`, `RequestChain/UploadRequest.swift`): a multipart/form-data body
// after the GraphQL multipart request spec, sent through the same chain as any request.

/// A file to upload for an `Upload` variable of an operation (Apollo iOS 2.4's `GraphQLFile`).
public struct GraphQLFile: Sendable, Hashable {
    /// The variable the file is for.
    public let fieldName: String
    public let originalName: String
    public let mimeType: String
    public let data: Data?
    public let fileURL: URL?
    public let contentLength: UInt64

    public enum GraphQLFileError: Error, LocalizedError {
        case couldNotCreateInputStream
        case couldNotGetFileSize(fileURL: URL)

        public var errorDescription: String? {
            switch self {
            case .couldNotCreateInputStream:
                "An input stream could not be made from the file's URL or data: pass one of them, and a URL the app may read."
            case .couldNotGetFileSize(let fileURL):
                "The size of the file at \(fileURL) could not be read: it is not there, or the app may not read it."
            }
        }
    }

    public static let octetStreamMimeType = "application/octet-stream"

    public init(fieldName: String, originalName: String, mimeType: String = GraphQLFile.octetStreamMimeType, data: Data) {
        self.fieldName = fieldName
        self.originalName = originalName
        self.mimeType = mimeType
        self.data = data
        fileURL = nil
        contentLength = UInt64(data.count)
    }

    public init(fieldName: String, originalName: String, mimeType: String = GraphQLFile.octetStreamMimeType, fileURL: URL) throws {
        guard let size = (try? FileManager.default.attributesOfItem(atPath: fileURL.path))?[.size] as? NSNumber else {
            throw GraphQLFileError.couldNotGetFileSize(fileURL: fileURL)
        }
        self.fieldName = fieldName
        self.originalName = originalName
        self.mimeType = mimeType
        data = nil
        self.fileURL = fileURL
        contentLength = size.uint64Value
    }

    /// The file's bytes as a stream: its data, or the file at its URL.
    public func generateInputStream() throws -> InputStream {
        if let data { return InputStream(data: data) }
        if let fileURL, let stream = InputStream(url: fileURL) { return stream }
        throw GraphQLFileError.couldNotCreateInputStream
    }
}

/// A multipart/form-data body, part by part (Apollo iOS 2.4's `MultipartFormData`).
public final class MultipartFormData {
    public let boundary: String
    private var parts: [Part] = []

    private struct Part {
        let name: String
        let stream: InputStream
        let contentType: String?
        let filename: String?

        var headers: String {
            var headers = "Content-Disposition: form-data; name=\"\(name)\""
            if let filename { headers += "; filename=\"\(filename)\"" }
            headers += "\r\n"
            if let contentType { headers += "Content-Type: \(contentType)\r\n" }
            return headers + "\r\n"
        }
    }

    public init(boundary: String) {
        self.boundary = boundary
    }

    public func appendPart(string: String, name: String) throws {
        appendPart(data: Data(string.utf8), name: name, contentType: nil)
    }

    public func appendPart(data: Data, name: String, contentType: String? = nil, filename: String? = nil) {
        appendPart(inputStream: InputStream(data: data), contentLength: UInt64(data.count), name: name, contentType: contentType, filename: filename)
    }

    public func appendPart(inputStream: InputStream, contentLength: UInt64, name: String, contentType: String? = nil, filename: String? = nil) {
        parts.append(Part(name: name, stream: inputStream, contentType: contentType, filename: filename))
    }

    /// The body: each part after its boundary line and headers, then the closing boundary.
    public func encode() throws -> Data {
        var body = Data()
        for part in parts {
            body.append(Data("--\(boundary)\r\n".utf8))
            body.append(Data(part.headers.utf8))
            body.append(Self.contents(of: part.stream))
            body.append(Data("\r\n".utf8))
        }
        body.append(Data("--\(boundary)--".utf8))
        return body
    }

    /// What `stream` holds, read to its end or its first error.
    private static func contents(of stream: InputStream) -> Data {
        stream.open()
        defer { stream.close() }
        var contents = Data()
        var buffer = [UInt8](repeating: 0, count: 1024)
        // A read below 1 is the end or an error (Foundation on Linux has no `streamError` to ask).
        while stream.hasBytesAvailable {
            let read = stream.read(&buffer, maxLength: buffer.count)
            guard read > 0 else { break }
            contents.append(buffer, count: read)
        }
        return contents
    }
}

/// A request that uploads files with its operation (Apollo iOS 2.4's `UploadRequest`): sent
/// over the network only, as multipart/form-data.
public struct UploadRequest<Operation: GraphQLOperation>: GraphQLRequest, Hashable {
    public var graphQLEndpoint: URL
    public var operation: Operation
    public var additionalHeaders: [String: String] = [:]
    public var fetchBehavior: FetchBehavior
    public var writeResultsToCache: Bool
    public var requestTimeout: TimeInterval?
    public let requestBodyCreator: any JSONRequestBodyCreator
    public let files: [GraphQLFile]
    public let multipartBoundary: String

    public init(
        operation: Operation,
        graphQLEndpoint: URL,
        files: [GraphQLFile],
        multipartBoundary: String? = nil,
        writeResultsToCache: Bool,
        requestBodyCreator: any JSONRequestBodyCreator = DefaultRequestBodyCreator()
    ) {
        self.operation = operation
        self.graphQLEndpoint = graphQLEndpoint
        self.files = files
        self.multipartBoundary = multipartBoundary ?? "apollo-ios.boundary.\(UUID().uuidString)"
        self.requestBodyCreator = requestBodyCreator
        fetchBehavior = .NetworkOnly
        self.writeResultsToCache = writeResultsToCache
        addHeader(name: "Content-Type", value: "multipart/form-data; boundary=\(self.multipartBoundary)")
    }

    public func toURLRequest() throws -> URLRequest {
        var request = createDefaultRequest()
        request.httpBody = try requestMultipartFormData().encode()
        return request
    }

    /// The form: `operations` (the JSON body, each file's variable set to null), `map` (which
    /// part fills which variable), then one part per file, in the order of their variables'
    /// names. A variable with several files gets each at its index.
    public func requestMultipartFormData() throws -> MultipartFormData {
        let form = MultipartFormData(boundary: multipartBoundary)
        let fieldNames = Set(files.map(\.fieldName)).sorted()
        var fields = requestBodyCreator.requestBody(
            for: operation.chainOperation, sendQueryDocument: true, autoPersistQuery: false, clientAwareness: nil)
        var variables: [String: JSONValue] = if case .object(let given)? = fields["variables"] { given } else { [:] }
        for name in fieldNames {
            if case .array(let values)? = variables[name] {
                variables[name] = .array(values.map { _ in .null })
            } else {
                variables[name] = .null
            }
        }
        fields["variables"] = .object(variables)
        form.appendPart(data: JSONValue.object(fields).encoded(escaping: .foundation), name: "operations")
        var map: [String: JSONValue] = [:]
        var ordered: [GraphQLFile] = []
        for name in fieldNames {
            let forField = files.filter { $0.fieldName == name }
            for (index, file) in forField.enumerated() {
                let path = forField.count == 1 ? "variables.\(name)" : "variables.\(name).\(index)"
                map["\(ordered.count)"] = .array([.string(path)])
                ordered.append(file)
            }
        }
        form.appendPart(data: JSONValue.object(map).encoded(escaping: .foundation), name: "map")
        for (index, file) in ordered.enumerated() {
            form.appendPart(
                inputStream: try file.generateInputStream(), contentLength: file.contentLength, name: "\(index)", contentType: file.mimeType,
                filename: file.originalName)
        }
        return form
    }

    public static func == (lhs: UploadRequest, rhs: UploadRequest) -> Bool {
        lhs.graphQLEndpoint == rhs.graphQLEndpoint && lhs.operation == rhs.operation && lhs.additionalHeaders == rhs.additionalHeaders
            && lhs.fetchBehavior == rhs.fetchBehavior && lhs.writeResultsToCache == rhs.writeResultsToCache
            && lhs.requestTimeout == rhs.requestTimeout && type(of: lhs.requestBodyCreator) == type(of: rhs.requestBodyCreator)
            && lhs.files == rhs.files && lhs.multipartBoundary == rhs.multipartBoundary
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(graphQLEndpoint)
        hasher.combine(operation)
        hasher.combine(additionalHeaders)
        hasher.combine(fetchBehavior)
        hasher.combine(writeResultsToCache)
        hasher.combine(requestTimeout)
        hasher.combine(files)
        hasher.combine(multipartBoundary)
    }
}

/// A transport that can upload files (Apollo iOS 2.4's `UploadingNetworkTransport`).
public protocol UploadingNetworkTransport {
    func upload<Operation: GraphQLOperation>(
        operation: Operation, files: [GraphQLFile], requestConfiguration: RequestConfiguration
    ) throws -> AsyncThrowingStream<GraphQLResponse<Operation>, any Error>
}

extension RequestChainNetworkTransport: UploadingNetworkTransport {
    /// The multipart request the transport sends for `operation` and `files`.
    public func constructUploadRequest<Operation: GraphQLOperation>(
        for operation: Operation, files: [GraphQLFile], requestConfiguration: RequestConfiguration
    ) -> UploadRequest<Operation> {
        var request = UploadRequest(
            operation: operation, graphQLEndpoint: endpointURL, files: files, writeResultsToCache: requestConfiguration.writeResultsToCache,
            requestBodyCreator: requestBodyCreator)
        request.addHeaders(additionalHeaders)
        return request
    }

    public func upload<Operation: GraphQLOperation>(
        operation: Operation, files: [GraphQLFile], requestConfiguration: RequestConfiguration
    ) throws -> AsyncThrowingStream<GraphQLResponse<Operation>, any Error> {
        let request = constructUploadRequest(for: operation, files: files, requestConfiguration: requestConfiguration)
        return RequestChain<UploadRequest<Operation>>(
            urlSession: urlSession, interceptors: Interceptors(provider: interceptorProvider, operation: operation), store: store
        ).kickoff(request: request)
    }
}

extension ApolloClient {
    /// Sends `operation` with `files` uploaded for its `Upload` variables; the result.
    public func upload<Operation: GraphQLOperation>(
        operation: Operation, files: [GraphQLFile], requestConfiguration: RequestConfiguration? = nil
    ) async throws -> GraphQLResponse<Operation> {
        guard let transport = networkTransport as? any UploadingNetworkTransport else { throw Error.noUploadTransport }
        for try await result in try transport.upload(
            operation: operation, files: files, requestConfiguration: requestConfiguration ?? defaultRequestConfiguration)
        {
            return result
        }
        try Task.checkCancellation()
        throw Error.noResults
    }
}
