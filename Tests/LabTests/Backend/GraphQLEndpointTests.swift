import Backend
import ChainKit
import Foundation
import Lab
import Testing

@Suite struct GraphQLEndpointTests {
    @Test func heroQueryReturnsTheHeroExactly() throws {
        let lab = BackendHarness()
        let response = lab.heroQuery(token: lab.backend.issueTokens().accessToken)
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.text == heroData)
    }

    @Test func heroQueryIsMatchedByNameWithoutQueryText() {
        let lab = BackendHarness()
        let response = lab.graphQL(["operationName": "HeroQuery"], token: lab.backend.issueTokens().accessToken)
        #expect(response.status == 200)
        #expect(response.text == heroData)
    }

    @Test func heroQueryIsMatchedByQueryTextWithoutName() {
        let lab = BackendHarness()
        let response = lab.graphQL(["query": "query HeroQuery { hero { id name } }"], token: lab.backend.issueTokens().accessToken)
        #expect(response.text == heroData)
    }

    @Test func renameHeroChangesLaterHeroQueries() {
        let lab = BackendHarness()
        let token = lab.backend.issueTokens().accessToken
        let rename = LabOperations.renameHero(name: "Artoo")
        let mutation = lab.graphQL(
            ["operationName": "RenameHero", "query": .string(rename.document), "variables": .object(rename.variables ?? [:])],
            token: token)
        #expect(mutation.status == 200)
        #expect(mutation.text == #"{"data":{"renameHero":{"id":"2001","name":"Artoo"}}}"#)
        #expect(lab.heroQuery(token: token).text == #"{"data":{"hero":{"id":"2001","name":"Artoo"}}}"#)
    }

    @Test func heroDetailsQueryTakesAnIdVariable() {
        let lab = BackendHarness()
        let token = lab.backend.issueTokens().accessToken
        let luke = lab.graphQL(["operationName": "HeroDetailsQuery", "variables": ["id": "1000"]], token: token)
        #expect(luke.text == #"{"data":{"hero":{"appearsIn":["NEWHOPE","EMPIRE","JEDI"],"id":"1000","name":"Luke Skywalker"}}}"#)
        let nobody = lab.graphQL(["operationName": "HeroDetailsQuery", "variables": ["id": "42"]], token: token)
        #expect(nobody.status == 200)
        #expect(nobody.text == #"{"data":{"hero":null}}"#)
    }

    @Test func heroDetailsQueryWithoutItsVariableIs400() {
        let lab = BackendHarness()
        let response = lab.graphQL(["operationName": "HeroDetailsQuery"], token: lab.backend.issueTokens().accessToken)
        #expect(response.status == 400)
        #expect(response.text == #"{"errors":[{"extensions":{"code":"BAD_USER_INPUT"},"message":"Variable \"$id\" of required type \"ID!\" was not provided."}]}"#)
    }

    @Test func getRunsAQueryFromPercentEncodedParameters() {
        let lab = BackendHarness()
        let token = lab.backend.issueTokens().accessToken
        let response = lab.send(
            "GET", "/graphql?operationName=HeroQuery&query=query%20HeroQuery%20%7B%20hero%20%7B%20id%20name%20%7D%20%7D&variables=%7B%7D",
            headers: [("Authorization", "Bearer \(token)")])
        #expect(response.status == 200)
        #expect(response.text == heroData)
    }

    @Test func getFromAChainKitRequestRunsTheQuery() throws {
        let lab = BackendHarness()
        var request = ChainRequest(operation: LabOperations.heroQuery, graphQLEndpoint: try #require(URL(string: "http://lab.local/graphql")))
        request.useGETForQueries = true
        let network = try request.makeNetworkRequest()
        var backendRequest = BackendRequest(network)
        #expect(backendRequest.method == "GET")
        #expect(backendRequest.target.hasPrefix("/graphql?"))
        try backendRequest.headers.append("Authorization", "Bearer \(lab.backend.issueTokens().accessToken)")
        #expect(lab.backend.handle(backendRequest).text == heroData)
    }

    @Test func mutationOverGetIs405AllowingPost() {
        let lab = BackendHarness()
        let response = lab.send(
            "GET", "/graphql?operationName=RenameHero&variables=%7B%22name%22%3A%22X%22%7D",
            headers: [("Authorization", "Bearer \(lab.backend.issueTokens().accessToken)")])
        #expect(response.status == 405)
        #expect(response.headers["Allow"] == "POST")
        #expect(response.json?["errors"]?[0]?["message"] == "Can only perform a mutation operation from a POST request.")
    }

    @Test func unknownOperationIs200WithAGraphQLError() {
        let lab = BackendHarness()
        let response = lab.graphQL(["operationName": "VillainQuery"], token: lab.backend.issueTokens().accessToken)
        #expect(response.status == 200)
        #expect(response.text == #"{"errors":[{"extensions":{"code":"GRAPHQL_VALIDATION_FAILED"},"message":"unknown operation \"VillainQuery\"; this server knows HeroDeferQuery, HeroDetailsQuery, HeroNameChanged, HeroQuery, RenameHero"}]}"#)
    }

    @Test func operationNameMissingFromTheDocumentIsAnError() {
        let lab = BackendHarness()
        let response = lab.graphQL(
            ["operationName": "HeroQuery", "query": "mutation RenameHero($name: String!) { renameHero(name: $name) { id } }"],
            token: lab.backend.issueTokens().accessToken)
        #expect(response.status == 200)
        #expect(response.json?["errors"]?[0]?["message"] == #"Unknown operation named "HeroQuery"."#)
    }

    @Test func malformedJSONIs400WithAGraphQLError() {
        let lab = BackendHarness()
        let response = lab.send(
            "POST", "/graphql",
            headers: [("Content-Type", "application/json"), ("Authorization", "Bearer \(lab.backend.issueTokens().accessToken)")],
            body: #"{"operationName": "HeroQuery""#)
        #expect(response.status == 400)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.json?["errors"]?[0]?["extensions"]?["code"] == "BAD_REQUEST")
        #expect(response.json?["errors"]?[0]?["message"]?.stringValue?.hasPrefix("malformed JSON body: not valid JSON at line 1") == true)
    }

    @Test func bodyOfTheWrongMediaTypeIs415() {
        let lab = BackendHarness()
        let response = lab.send(
            "POST", "/graphql",
            headers: [("Content-Type", "text/plain"), ("Authorization", "Bearer \(lab.backend.issueTokens().accessToken)")],
            body: #"{"operationName":"HeroQuery"}"#)
        #expect(response.status == 415)
        #expect(response.text == #"{"errors":[{"extensions":{"code":"BAD_REQUEST"},"message":"the body must be application/json, not text/plain"}]}"#)
    }

    @Test func requestWithoutQueryOrHashIs400() {
        let lab = BackendHarness()
        let response = lab.graphQL(["variables": [:]], token: lab.backend.issueTokens().accessToken)
        #expect(response.status == 400)
        #expect(response.json?["errors"]?[0]?["message"] == "GraphQL operations must contain a non-empty `query` or a `persistedQuery` extension.")
    }

    @Test func withoutRequireAuthNoTokenIsNeeded() {
        var settings = LabBackend.Settings()
        settings.requireAuth = false
        let lab = BackendHarness(settings)
        #expect(lab.heroQuery(token: nil).text == heroData)
    }
}
