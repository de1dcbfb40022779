import ChainKit
import Lab
import Testing
import Timeline

/// Each layer the lab can build is one definition: its name, place, settings, lint traits and
/// maker together.
@Suite("Layer registry")
struct LayerRegistryTests {
    @Test("a scenario built in code with a name the lab does not know fails its request saying so, where it stands")
    func unknownName() async throws {
        var scenario = try #require(Catalog.scenario(named: "basics"))
        scenario.chain = .graphQL(graphQL: [Scenario.Layer("MaxRetryInterceptor"), Scenario.Layer("RetryOnErrorInterceptr")], http: [Scenario.Layer("ResponseCodeInterceptor")])
        let result = await LabSession(scenario: scenario).runHeadless()
        #expect(result.requests.map(\.outcome) == [.failure])
        #expect(result.requests.first?.error
            == "UnknownLayerError: no GraphQL interceptor named RetryOnErrorInterceptr; known: MaxRetryInterceptor, AuthInterceptor, StaticAuthInterceptor, AutomaticPersistedQueryInterceptor, FallbackToCacheOnFailureInterceptor, RetryOnErrorInterceptor, LoggingInterceptor, RedactFieldInterceptor")
        #expect(result.backend["graphqlRequests"] == 0)
    }

    @Test("every definition's place matches what its maker builds, and lint knows each one's traits")
    func definitionsAgree() {
        #expect(LayerRegistry.names(for: .http) == ["ResponseCodeInterceptor"])
        #expect(LayerRegistry.names(for: .middleware) == ["AuthenticationMiddleware", "LoggingMiddleware", "RetryingMiddleware", "FaultInjectionMiddleware"])
        for definition in LayerRegistry.definitions {
            #expect(LayerTraits.builtIn[definition.name] == definition.traits, "\(definition.name)")
        }
        #expect(LayerTraits.builtIn["AuthInterceptor"] == [.retries, .attachesAuthorization, .refreshesTokens, .readsGraphQLErrors])
        #expect(LayerTraits.builtIn["JSONResponseParsingInterceptor"] == [.parsesResponses, .readsGraphQLErrors])
    }
}

/// Each export format is one value; the CLI, the inspector and the config file read the
/// choices from ``ExportFormat/all``.
@Suite("Export formats")
struct ExportFormatTests {
    @Test("one value per format: its name, file extension and whether the inspector offers it")
    func formats() {
        #expect(ExportFormat.all.map(\.id) == ["text", "json", "har", "curl", "otlp"])
        #expect(ExportFormat.all.map(\.fileExtension) == ["txt", "json", "har", "sh", "otlp.json"])
        #expect(ExportFormat.inInspector == [.json, .har, .otlp])
        #expect([ExportFormat.json.nextInInspector, .har.nextInInspector, .otlp.nextInInspector] == [.har, .otlp, .json])
        #expect(ExportFormat.named("otlp") == .otlp)
        #expect(ExportFormat.named("xml") == nil)
    }
}
