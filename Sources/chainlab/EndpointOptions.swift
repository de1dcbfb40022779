import ChainKit
import Vocabulary
import Foundation
import Lab
import Outbound
import Timeline

/// The options that point a run at a real server, shared by `trace` and the inspector:
/// the endpoint, the user's operation and variables, extra headers, tokens, a real token
/// endpoint, and the limits on reading from the network.
struct EndpointOptions {
    static let usage = """
          --endpoint URL      send the operations to a real server: any GraphQL-over-HTTP
                              server (its GraphQL URL; REST: its base URL)
          --lab               the server may be a ChainLab lab (chainlab serve): ask it with
                              GET /_lab/state, and use its sign-in, controls and counters
          --operation FILE    run the GraphQL operation in FILE (.graphql) instead of the
                              scenario's, in every one of its launches
          --operation-name N  the operation of FILE to run when it has several
          --variables JSON    the operation's variables: a JSON object, or @FILE to read one
          --header 'N: V'     add a header to every request (repeatable); credentials masked
          --mask-header NAME  mask the header NAME's values like Authorization (repeatable)
          --token TOKEN       the access token Auth sends as Bearer (also --token-env VAR)
          --auth-failure F    what says the server refused the token (repeatable): a status
                              (401, 403; AuthenticationMiddleware reads only these) or a GraphQL
                              error code at any status (UNAUTHENTICATED); default 401 and
                              UNAUTHENTICATED
          --token-file FILE   read the tokens from FILE ({"access_token": …, "refresh_token": …})
                              and write the pair the run ends with back to it (mode 0600)
          --oauth-token-url URL  refresh at this RFC 6749 token endpoint: refresh_token grant
                              (rotation honoured), client_credentials without a refresh token
          --client-id ID      the OAuth client id
          --client-secret-env VAR  the environment variable holding the client secret
          --client-auth basic|body  client authentication: HTTP Basic (default) or in the body
          --refresh-token-env VAR  the environment variable holding the refresh token
          --client-name NAME  send apollographql-client-name: NAME (GraphOS client awareness)
          --client-version V  send apollographql-client-version: V
          --no-client-library leave out extensions.clientLibrary, which bodies carry by default
                              as an ApolloClient's do (these three also work on the lab)
          --max-body BYTES    read at most BYTES of a response body after decompression,
                              of each part of a multipart one and of all (default 1048576)
          --timeout SECONDS   give up on an exchange after SECONDS in all (default 30)
          --no-traceparent    send no W3C traceparent (by default each attempt and refresh
                              carries one with the ids of its span in the OTLP export)
        """

    /// The largest `--max-body`: 1 GiB.
    static let maxBodyLimit = 1 << 30

    var endpoint: URL?
    var operationFile: String?
    var operationName: String?
    var variables: String?
    var headers = HTTPFields()
    var token: String?
    var tokenEnv: String?
    var tokenFile: String?
    var authFailures: [String] = []
    var lab = false
    var tokenURL: URL?
    var clientID: String?
    var clientSecretEnv: String?
    var clientAuth: OAuthTokenEndpoint.ClientAuthentication?
    var refreshTokenEnv: String?
    var maxBody = 1 << 20
    var timeout = 30.0
    var clientName: String?
    var clientVersion: String?
    var clientLibrary = true
    var sendsTraceparent = true
    /// Options given, in order, for "needs --endpoint" messages.
    private var given: [String] = []

    /// The options, as `trace` and the inspector take them.
    static var options: [CommandOption<EndpointOptions>] {
        [
            option("--endpoint") { $0.endpoint = try httpURL($1, option: "--endpoint") },
            option("--operation") { $0.operationFile = $1 },
            option("--operation-name") { $0.operationName = $1 },
            option("--variables") { $0.variables = $1 },
            option("--header", repeatable: true) { try addHeader($1, to: &$0.headers) },
            .value("--mask-header", repeatable: true) { _, name in
                guard (try? HTTPField(name: name, value: "")) != nil else {
                    throw CommandLineError("--mask-header needs a header name (letters, digits and !#$%&'*+-.^_`|~), got '\(VisibleEscapes.escape(name))'")
                }
                SecretMasking.maskHeader(named: name)
            },
            option("--token") { $0.token = $1 },
            option("--token-env") { $0.tokenEnv = $1 },
            option("--token-file") { $0.tokenFile = $1 },
            .flag("--lab") { settings in
                settings.given.append("--lab")
                settings.lab = true
            },
            option("--auth-failure", repeatable: true) { settings, value in
                let isCode = value.first?.isLetter == true
                    && value.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || $0 == "_") }
                guard Int(value).map({ (400...599).contains($0) }) ?? isCode else {
                    throw CommandLineError("--auth-failure needs a status from 400 to 599 (401, 403) or a GraphQL error code (UNAUTHENTICATED), got '\(VisibleEscapes.escape(value))'")
                }
                settings.authFailures.append(value)
            },
            option("--oauth-token-url") { $0.tokenURL = try httpURL($1, option: "--oauth-token-url") },
            option("--client-id") { $0.clientID = $1 },
            option("--client-secret-env") { $0.clientSecretEnv = $1 },
            option("--client-auth") { settings, value in
                guard let method = OAuthTokenEndpoint.ClientAuthentication(rawValue: value) else {
                    throw CommandLineError("--client-auth is basic or body, got '\(VisibleEscapes.escape(value))'")
                }
                settings.clientAuth = method
            },
            option("--refresh-token-env") { $0.refreshTokenEnv = $1 },
            option("--max-body") { settings, value in
                guard let bytes = Int(value), bytes >= 1, bytes <= maxBodyLimit else {
                    throw CommandLineError("--max-body needs a number of bytes from 1 to \(maxBodyLimit), got '\(VisibleEscapes.escape(value))'")
                }
                settings.maxBody = bytes
            },
            .value("--client-name") { $0.clientName = try headerValue($1, option: "--client-name") },
            .value("--client-version") { $0.clientVersion = try headerValue($1, option: "--client-version") },
            .flag("--no-client-library") { $0.clientLibrary = false },
            option("--timeout") { settings, value in
                guard let seconds = Double(value), seconds > 0, seconds <= 3600 else {
                    throw CommandLineError("--timeout needs seconds above 0 and at most 3600, got '\(VisibleEscapes.escape(value))'")
                }
                settings.timeout = seconds
            },
            .flag("--no-traceparent") { settings in
                settings.given.append("--no-traceparent")
                settings.sendsTraceparent = false
            },
        ]
    }

    /// An option of this group: it takes a value and is remembered as given, for the
    /// "needs --endpoint" messages.
    private static func option(
        _ name: String, repeatable: Bool = false, _ apply: @escaping (inout EndpointOptions, String) throws -> Void
    ) -> CommandOption<EndpointOptions> {
        .value(name, repeatable: repeatable) { settings, value in
            settings.given.append(name)
            try apply(&settings, value)
        }
    }

    /// An `http://` or `https://` URL with a host (IPv6 literals in brackets).
    static func httpURL(_ text: String, option: String) throws -> URL {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty, let url = components.url
        else {
            let shown = URL(string: text).map(RemoteFailure.displayURL) ?? VisibleEscapes.escape(text)
            throw CommandLineError("\(option) needs an http:// or https:// URL such as http://127.0.0.1:4000/graphql, got '\(shown)'")
        }
        return url
    }

    /// Headers that say how a message is framed or routed: a value from the command line
    /// would disagree with the body and URL actually sent (`Content-Length: 5` on 76 bytes).
    static let framingHeaders = ["Content-Length", "Transfer-Encoding", "Host", "Connection", "Upgrade", "TE", "Trailer", "Keep-Alive"]

    static func addHeader(_ text: String, to headers: inout HTTPFields) throws {
        guard let colon = text.firstIndex(of: ":") else {
            throw CommandLineError("--header needs 'Name: value'; the argument has no ':'")
        }
        let name = String(text[..<colon])
        let value = text[text.index(after: colon)...].trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
        if framingHeaders.contains(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) {
            throw CommandLineError("--header '\(VisibleEscapes.escape(name)): …': the client sets \(framingHeaders.joined(separator: ", ")) from the request it sends (the body's length and framing, the URL's host and the connection); a value given here would contradict them")
        }
        do {
            headers.append(try HTTPField(name: name, value: value))
        } catch {
            throw CommandLineError("--header '\(VisibleEscapes.escape(name)): …': \(error.description)")
        }
    }

    /// The run's connection settings, or nil without `--endpoint`.
    /// - Throws: when an option needs `--endpoint` or another option, or a named
    ///   environment variable is unset.
    func remoteOptions(environment: [String: String]) throws -> RemoteOptions? {
        guard var endpoint else {
            if let option = given.first { throw CommandLineError("\(option) needs --endpoint URL (a real server)") }
            return nil
        }
        if tokenURL == nil, let option = given.first(where: { ["--client-id", "--client-secret-env", "--client-auth", "--refresh-token-env"].contains($0) }) {
            throw CommandLineError("\(option) needs --oauth-token-url URL (the token endpoint)")
        }
        if operationFile == nil, let option = given.first(where: { ["--operation-name", "--variables"].contains($0) }) {
            throw CommandLineError("\(option) needs --operation FILE")
        }
        if token != nil, tokenEnv != nil { throw CommandLineError("give --token or --token-env, not both") }
        if tokenFile != nil, let option = given.first(where: { ["--token", "--token-env", "--refresh-token-env"].contains($0) }) {
            throw CommandLineError("give --token-file or \(option), not both: the file holds both tokens")
        }
        var headers = self.headers
        // Credentials in the URL become a Basic Authorization header, masked like any other,
        // so the URL shown in events and messages carries none.
        if var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false), let user = components.user {
            let credentials = Data("\(user):\(components.password ?? "")".utf8).base64EncodedString()
            if !headers.contains("Authorization") { try headers.append("Authorization", "Basic \(credentials)") }
            components.user = nil
            components.password = nil
            endpoint = components.url ?? endpoint
        }
        var options = RemoteOptions(endpoint: endpoint, headers: headers, maxBodyBytes: maxBody, timeout: timeout)
        options.token = try token ?? tokenEnv.map { try Self.variable($0, environment, option: "--token-env") }
        if let tokenURL {
            options.tokenEndpoint = OAuthTokenEndpoint(
                url: tokenURL, clientID: clientID,
                clientSecret: try clientSecretEnv.map { try Self.variable($0, environment, option: "--client-secret-env") },
                clientAuthentication: clientAuth ?? .basic)
            options.refreshToken = try refreshTokenEnv.map { try Self.variable($0, environment, option: "--refresh-token-env") }
        }
        options.asksForLab = lab
        options.sendsTraceparent = sendsTraceparent
        if !authFailures.isEmpty {
            options.authFailure = AuthFailure(statuses: Set(authFailures.compactMap { Int($0) }), errorCodes: Set(authFailures.filter { Int($0) == nil }))
        }
        if let tokenFile {
            let pair = try Self.readTokens(tokenFile)
            options.token = pair.accessToken
            options.refreshToken = pair.refreshToken
            options.keepsTokens = true
        }
        return options
    }

    /// The tokens of a `--token-file`: a JSON object with `access_token` and, optionally,
    /// `refresh_token`, as a token endpoint answers (RFC 6749 §5.1).
    static func readTokens(_ path: String) throws -> TokenPair {
        let shown = VisibleEscapes.escape(path)
        let data = try readFile(path, purpose: "token file", limit: RemoteLab.controlAnswerLimit)
        let expected = #"expected a JSON object such as {"access_token": "…", "refresh_token": "…"}"#
        guard case .object(let members) = try? JSONValue(parsing: data) else { throw CommandLineError("--token-file \(shown): \(expected)") }
        guard let access = members["access_token"]?.stringValue, !access.isEmpty else {
            throw CommandLineError("--token-file \(shown): access_token: expected a non-empty string")
        }
        let refresh = members["refresh_token"]
        guard refresh == nil || refresh?.stringValue?.isEmpty == false else {
            throw CommandLineError("--token-file \(shown): refresh_token: expected a non-empty string")
        }
        return TokenPair(accessToken: access, refreshToken: refresh?.stringValue)
    }

    /// Writes `tokens` to the `--token-file`, replacing it at once and readable by its owner
    /// only, when they differ from what it held.
    func saveTokens(_ tokens: TokenPair) throws {
        guard let tokenFile, tokens != (try? Self.readTokens(tokenFile)) else { return }
        var object: [String: JSONValue] = ["access_token": .string(tokens.accessToken)]
        if let refresh = tokens.refreshToken { object["refresh_token"] = .string(refresh) }
        do { try AtomicFile.write(JSONValue.object(object).jsonString + "\n", to: tokenFile, ownerOnly: true) } catch {
            throw CommandLineError("--token-file: \(error)")
        }
    }

    private static func variable(_ name: String, _ environment: [String: String], option: String) throws -> String {
        guard let value = environment[name], !value.isEmpty else {
            throw CommandLineError("\(option) \(VisibleEscapes.escape(name)): the environment variable is not set or empty")
        }
        return value
    }

    /// A client-awareness value: what can go in a header, as it will be sent.
    private static func headerValue(_ value: String, option: String) throws -> String {
        guard !value.isEmpty, value.utf8.allSatisfy(HTTPSyntax.isFieldContentByte) else {
            throw CommandLineError("\(option) needs text that can be a header value (no control characters), got '\(VisibleEscapes.escape(value))'")
        }
        return value
    }

    /// `scenario` with the client awareness the options ask for in each GraphQL operation
    /// (`--client-name`, `--client-version`, `--no-client-library`), and the user's operation
    /// in place of each of its operations (`--operation`).
    func apply(to scenario: Scenario) throws -> Scenario {
        var scenario = scenario
        if clientName != nil || clientVersion != nil || !clientLibrary, case .graphQL = scenario.chain {
            let awareness = ClientAwarenessMetadata(
                clientApplicationName: clientName, clientApplicationVersion: clientVersion, includeApolloLibraryAwareness: clientLibrary)
            for index in scenario.operations.indices { scenario.operations[index].clientAwareness = awareness }
        }
        guard let operationFile else { return scenario }
        guard case .graphQL = scenario.chain else {
            throw CommandLineError("--operation is for GraphQL chains; scenario '\(VisibleEscapes.escape(scenario.name))' is a middleware chain (give REST operations in a scenario file: method, path, body)")
        }
        let data = try readFile(operationFile, purpose: "operation file", limit: LabLimits.scenarioFileBytes)
        guard let text = String(data: data, encoding: .utf8) else {
            throw CommandLineError("\(VisibleEscapes.escape(operationFile)) is not UTF-8 text")
        }
        let document: GraphQLDocument
        let chosen: (operation: GraphQLDocument.Operation, name: String)
        do {
            document = try GraphQLDocument(text: text)
            chosen = try document.namedOperation(operationName)
        } catch let error as GraphQLDocument.ParseError {
            throw CommandLineError("\(VisibleEscapes.escape(operationFile)): \(error.description)")
        } catch {
            throw CommandLineError("\(VisibleEscapes.escape(operationFile)): \(error)")
        }
        let values = try variables.map(Self.variablesObject)
        scenario.operations = scenario.operations.map { original in
            var operation = original
            operation.name = chosen.name
            operation.document = document.document(of: chosen.operation)
            operation.kind = chosen.operation.kind
            // The slot's fetch behaviour is a query's; another kind takes its own default.
            if chosen.operation.kind != .query { operation.fetchBehavior = nil }
            operation.variables = values
            return operation
        }
        scenario.prefillCache = false
        return scenario
    }

    /// The recording of a run of `scenario` (as ``apply(to:)`` made it) with these options:
    /// its commands and, on a real server, the endpoint, the headers (masked) and the
    /// operations it sent when they are not the scenario's own (`--operation`, or a replay's),
    /// so a replay sends them to that server again. `trace --record` and the inspector's
    /// `--record` both save this.
    func recording(of scenario: Scenario, commands: [RecordedCommand], remote: RemoteOptions?, replayedOperations: Bool = false) -> Recording {
        Recording(
            scenario: scenario.name, commands: commands, endpoint: remote?.endpoint.absoluteString,
            headers: remote.map { SecretMasking.masked.headers($0.headers).map { "\($0.name): \($0.value)" } },
            operations: operationFile != nil || replayedOperations ? scenario.operations : nil)
    }

    /// The files these options read: the operation file and a `--variables @FILE`.
    var inputFiles: [(option: String, path: String?)] {
        [("--operation", operationFile), ("--variables", variables.flatMap { $0.hasPrefix("@") ? String($0.dropFirst()) : nil })]
    }

    /// The JSON object `--variables` gives, inline or from `@FILE`.
    static func variablesObject(_ text: String) throws -> [String: JSONValue] {
        var source = "--variables"
        var data = Data(text.utf8)
        if text.hasPrefix("@") {
            let path = String(text.dropFirst())
            data = try readFile(path, purpose: "variables file", limit: LabLimits.scenarioFileBytes)
            source = VisibleEscapes.escape(path)
        }
        let value: JSONValue
        do {
            value = try JSONValue(parsing: data, options: JSONParser.Options(rejectsDuplicateKeys: true))
        } catch {
            throw CommandLineError("\(source): not JSON: \(error.description)")
        }
        guard case .object(let object) = value else {
            throw CommandLineError("\(source): expected a JSON object such as {\"id\": \"2001\"}, got \(VisibleEscapes.escape(String(value.jsonString.prefix(60))))")
        }
        return object
    }
}
