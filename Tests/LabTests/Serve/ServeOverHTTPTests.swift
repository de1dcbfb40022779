import Backend
import ChainKit
import Foundation
@testable import HTTPServer
@testable import Lab
@testable import Scheduling
@testable import Serve
import TestSupport
import Testing

/// Apollo's default chain with a fixed bearer token added after its interceptors.
private struct BearerTokenProvider: ChainInterceptorProvider {
    let defaults = DefaultChainInterceptorProvider(store: CacheStore())
    let auth: StaticAuthInterceptor

    func graphQLInterceptors(for operation: ChainOperation) -> [any ChainInterceptor] {
        defaults.graphQLInterceptors(for: operation) + [auth]
    }

    func cacheInterceptor(for operation: ChainOperation) -> any ChainCacheInterceptor {
        defaults.cacheInterceptor(for: operation)
    }

    func httpInterceptors(for operation: ChainOperation) -> [any ChainHTTPInterceptor] {
        defaults.httpInterceptors(for: operation)
    }

    func responseParser(for operation: ChainOperation) -> any ChainResponseParser {
        defaults.responseParser(for: operation)
    }
}

private let passwordGrant = "grant_type=password&username=demo&password=demo"
private let firstTokens = #"{"access_token":"at-1-1","expires_in":300,"refresh_token":"rt-1-1","token_type":"Bearer"}"#

@Suite("serve: the lab backend over HTTP")
struct ServeOverHTTPTests {
    @Test func heroQueryThroughARequestChainWithATokenFromAPasswordGrant() async throws {
        let lab = try ServedLab()
        defer { lab.service.stop() }
        let grant = try await lab.token(passwordGrant)
        #expect(grant.status == 200)
        #expect(grant.text == firstTokens)
        let token = try #require(try JSONValue(parsing: Data(grant.text.utf8))["access_token"]?.stringValue)

        let network = ChainNetworkTransport(
            interceptorProvider: BearerTokenProvider(auth: try StaticAuthInterceptor(authorization: "Bearer \(token)")),
            transport: URLSessionTransport())
        let results = try await network.send(ChainRequest(
            operation: LabOperations.heroQuery, graphQLEndpoint: lab.baseURL.appending(path: "graphql"))).collect()

        #expect(results == [ChainResponse(source: .server, data: ["hero": ["id": "2001", "name": "R2-D2"]])])
        #expect(lab.backend.counters["graphqlRequests"] == 1)
        #expect(lab.backend.counters["passwordGrants"] == 1)
        #expect(lab.backend.counters["unauthorized"] == 0)
    }

    @Test func tokenEndpointRotatesRefreshTokensAndRefusesReuse() async throws {
        let lab = try ServedLab()
        defer { lab.service.stop() }

        let signIn = try await lab.token(passwordGrant)
        #expect(signIn.status == 200)
        #expect(signIn.headers["Cache-Control"] == "no-store")
        #expect(signIn.text == firstTokens)

        let refreshed = try await lab.token("grant_type=refresh_token&refresh_token=rt-1-1")
        #expect(refreshed.status == 200)
        #expect(refreshed.text == #"{"access_token":"at-1-2","expires_in":300,"refresh_token":"rt-1-2","token_type":"Bearer"}"#)

        let reuse = try await lab.token("grant_type=refresh_token&refresh_token=rt-1-1")
        #expect(reuse.status == 400)
        #expect(reuse.headers["Content-Type"] == "application/json")
        #expect(reuse.text == #"{"error":"invalid_grant","error_description":"the refresh token was already used; every token from the same sign-in is now revoked"}"#)

        let revoked = try await lab.token("grant_type=refresh_token&refresh_token=rt-1-2")
        #expect(revoked.status == 400)
        #expect(revoked.text == #"{"error":"invalid_grant","error_description":"the refresh token was revoked"}"#)
        #expect(lab.backend.counters["tokenRefreshes"] == 3)
        #expect(lab.backend.counters["refreshRejected"] == 2)
        #expect(lab.backend.counters["familiesRevoked"] == 1)
    }

    @Test func expiringTokensThroughTheControlEndpointRefusesTheOldToken() async throws {
        let lab = try ServedLab()
        defer { lab.service.stop() }
        _ = try await lab.token(passwordGrant)
        let before = try await lab.send(.get, "/heroes/2001", headers: ["Authorization": "Bearer at-1-1"])
        #expect(before.status == 200)
        #expect(before.text == #"{"id":"2001","name":"R2-D2"}"#)

        let expire = try await lab.send(.post, "/_lab/expire-tokens")
        #expect(expire.status == 200)
        #expect(expire.text == #"{"expiredAccessTokens":1}"#)

        let after = try await lab.send(
            .post, "/graphql", headers: ["Content-Type": "application/json", "Authorization": "Bearer at-1-1"],
            body: #"{"operationName":"HeroQuery","query":"query HeroQuery { hero { id name } }"}"#)
        #expect(after.status == 401)
        #expect(after.headers["WWW-Authenticate"] == #"Bearer realm="lab", error="invalid_token", error_description="access token expired""#)
        #expect(after.text == #"{"errors":[{"extensions":{"code":"UNAUTHENTICATED"},"message":"access token expired"}]}"#)
    }

    @Test func tokenTTLRunsOnTheWallClock() async throws {
        var settings = LabBackend.Settings()
        settings.tokenTTL = 0.3
        let lab = try ServedLab(settings)
        defer { lab.service.stop() }
        let issued = ContinuousClock.now
        let grant = try await lab.token(passwordGrant)
        #expect(grant.text == #"{"access_token":"at-1-1","expires_in":0.3,"refresh_token":"rt-1-1","token_type":"Bearer"}"#)

        // Asks until the token is refused, however long a busy machine takes to get there:
        // the deadline only tells a hang from a slow run.
        var answer = try await lab.send(.get, "/heroes/2001", headers: ["Authorization": "Bearer at-1-1"])
        let hangGuard = ContinuousClock.now + .seconds(120)
        while answer.status == 200 && ContinuousClock.now < hangGuard {
            #expect(answer.text == #"{"id":"2001","name":"R2-D2"}"#)
            try await Task.sleep(for: .milliseconds(20))
            answer = try await lab.send(.get, "/heroes/2001", headers: ["Authorization": "Bearer at-1-1"])
        }

        #expect(answer.status == 401)
        #expect(answer.headers["WWW-Authenticate"] == #"Bearer realm="lab", error="invalid_token", error_description="access token expired""#)
        // Refused no sooner than the TTL after the grant was asked for: slowness only adds to this.
        #expect(ContinuousClock.now - issued >= .milliseconds(300))
    }

    @Test func latencyIsWaitedOnTheWallClockExceptForControlRoutes() async throws {
        var settings = LabBackend.Settings()
        settings.latency = 0.4
        settings.requireAuth = false
        let lab = try ServedLab(settings)
        defer { lab.service.stop() }

        let start = ContinuousClock.now
        let hero = try await lab.send(.get, "/heroes/2001")
        #expect(hero.status == 200)
        #expect(ContinuousClock.now - start >= .milliseconds(400))
        #expect(try await lab.send(.get, "/_lab/state").status == 200)
    }

    @Test func curlGetsExactStatusesAndBodies() async throws {
        let curl = "/usr/bin/curl"
        try #require(FileManager.default.isExecutableFile(atPath: curl), "curl is needed at \(curl)")
        let lab = try ServedLab()
        defer { lab.service.stop() }
        let base = lab.baseURL.absoluteString
        let common = ["--silent", "--show-error", "--max-time", "10", "--write-out", "\n%{http_code}"]

        let grant = try await runProcess(curl, common + ["--data", passwordGrant, "\(base)/oauth/token"])
        #expect(grant.status == 0)
        #expect(grant.stdout == firstTokens + "\n200")

        let hero = try await runProcess(curl, common + ["--header", "Authorization: Bearer at-1-1", "\(base)/heroes/2001"])
        #expect(hero.stdout == #"{"id":"2001","name":"R2-D2"}"# + "\n200")

        let anonymous = try await runProcess(curl, common + ["\(base)/heroes/2001"])
        #expect(anonymous.stdout == #"{"errors":[{"extensions":{"code":"UNAUTHENTICATED"},"message":"missing bearer token"}]}"# + "\n401")

        let unknown = try await runProcess(curl, common + ["\(base)/nowhere"])
        #expect(unknown.stdout == #"{"error":"not_found","message":"no route for /nowhere"}"# + "\n404")

        let mode = try await runProcess(curl, common + ["--data", "emptyBody401", "\(base)/_lab/auth-mode"])
        #expect(mode.stdout == #"{"authFailureMode":"emptyBody401"}"# + "\n200")
        let empty = try await runProcess(curl, common + ["\(base)/heroes/2001"])
        #expect(empty.stdout == "\n401")
        #expect(empty.stderr == "")
    }

    @Test func aHeaderTheBackendCannotRepresentIsA400() async {
        let request = HTTPServerRequest(method: "GET", target: "/heroes", headers: [HTTPServerHeader(name: "Bad Name", value: "x")])
        let response = await LabHTTPService.respond(to: request, backend: .onWallClock())
        #expect(response.status == 400)
        #expect(String(decoding: response.body, as: UTF8.self) == """
            header name "Bad Name" is not a valid token: space at offset 3 is not allowed; use letters, digits and !#$%&'*+-.^_`|~ (RFC 9110 §5.6.2)

            """)
    }

    @Test func backendResponseBecomesAServerResponseFieldForField() async {
        var settings = LabBackend.Settings()
        settings.hostile = true
        settings.requireAuth = false
        let response = await LabHTTPService.respond(
            to: HTTPServerRequest(method: "GET", target: "/heroes/1000"), backend: .onWallClock(settings: settings))
        #expect(response.status == 200)
        #expect(response.headers == [
            HTTPServerHeader(name: "Content-Type", value: "application/json"),
            HTTPServerHeader(name: "X-Lab-Title", value: HostilePayload.titleChange),
            HTTPServerHeader(name: "X-Lab-Clipboard", value: HostilePayload.clipboardWrite),
            HTTPServerHeader(name: "X-Lab-Clear", value: HostilePayload.screenClear),
            HTTPServerHeader(name: "X-Lab-Bidi", value: HostilePayload.bidiSpoof),
        ])
    }

    @Test func stoppingCancelsALatencyWait() async {
        var settings = LabBackend.Settings()
        settings.latency = 600
        settings.requireAuth = false
        let backend = LabBackend.onWallClock(settings: settings)
        let start = ContinuousClock.now
        let waiting = Task { await LabHTTPService.respond(to: HTTPServerRequest(method: "GET", target: "/heroes/1000"), backend: backend) }
        waiting.cancel()
        let response = await waiting.value
        #expect(response.status == 503)
        #expect(String(decoding: response.body, as: UTF8.self) == "the server is stopping\n")
        #expect(ContinuousClock.now - start < .seconds(60))
    }

    @Test func latencyBeyondADayIsCutToADay() {
        #expect(LabHTTPService.delay(forLatency: 1e300) == .seconds(86_400))
        #expect(LabHTTPService.delay(forLatency: .infinity) == .seconds(86_400))
        #expect(LabHTTPService.delay(forLatency: 0.25) == .milliseconds(250))
    }
}

@Suite("serve: multipart answers over chunked HTTP/1.1")
struct ServeIncrementalTests {
    func chain(_ lab: ServedLab) async throws -> ChainNetworkTransport {
        let grant = try await lab.token(passwordGrant)
        let token = try #require(try JSONValue(parsing: Data(grant.text.utf8))["access_token"]?.stringValue)
        return ChainNetworkTransport(
            interceptorProvider: BearerTokenProvider(auth: try StaticAuthInterceptor(authorization: "Bearer \(token)")),
            transport: URLSessionTransport())
    }

    @Test func aDeferQueryArrivesAsTwoResultsThroughURLSession() async throws {
        let lab = try ServedLab()
        defer { lab.service.stop() }
        let results = try await chain(lab).send(ChainRequest(
            operation: LabOperations.heroDeferQuery, graphQLEndpoint: lab.baseURL.appending(path: "graphql"))).collect()
        #expect(results.map(\.data) == [
            ["hero": ["id": "2001", "name": "R2-D2"]],
            ["hero": ["id": "2001", "name": "R2-D2", "appearsIn": ["NEWHOPE", "EMPIRE", "JEDI"]]],
        ])
    }

    @Test func aSubscriptionGoesOutChunkedOnePieceAtATime() async throws {
        let lab = try ServedLab()
        defer { lab.service.stop() }
        let results = try await chain(lab).send(ChainRequest(
            operation: LabOperations.heroNameChanged, graphQLEndpoint: lab.baseURL.appending(path: "graphql"))).collect()
        #expect(results.map(\.data) == ["R2-D2", "Artoo", "Artoo-Detoo"].map { ["heroNameChanged": ["id": "2001", "name": .string($0)]] })

        let token = lab.backend.issueTokens().accessToken
        let body = #"{"operationName":"HeroNameChanged","query":"subscription HeroNameChanged { heroNameChanged { id name } }"}"#
        let port = lab.port
        let wire = try await onOwnThread {
            let raw = try RawClient(port: port)
            try raw.transmit("POST /graphql HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nAccept: multipart/mixed;subscriptionSpec=1.0\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            return try raw.readThroughLastChunk()
        }
        #expect(wire.hasPrefix("HTTP/1.1 200 OK\r\nContent-Type: multipart/mixed;boundary=\"graphql\";subscriptionSpec=1.0\r\nTransfer-Encoding: chunked\r\n\r\n"))
        let first = "\r\n--graphql\r\ncontent-type: application/json\r\n\r\n{\"payload\":{\"data\":{\"heroNameChanged\":{\"id\":\"2001\",\"name\":\"R2-D2\"}}}}\r\n--graphql"
        #expect(wire.contains(String(first.utf8.count, radix: 16) + "\r\n" + first + "\r\n"))
        #expect(wire.hasSuffix("4\r\n--\r\n\r\n0\r\n\r\n"))
    }
}
