import ChainKit
import Foundation
import Testing

/// Server URL templates as swift-openapi-runtime validates them
/// (Sources/OpenAPIRuntime/Conversion/ServerVariable.swift and URLExtensions.swift; the cases of
/// Tests/OpenAPIRuntimeTests/Conversion/Test_ServerVariable.swift).
@Suite("Server URLs")
struct ServerURLTests {
    @Test("a template of constants is the URL it names", arguments: ["https://example.com", "https://example.com/api", "/api"])
    func constants(template: String) throws {
        #expect(try URL(validatingOpenAPIServerURL: template, variables: []).absoluteString == template)
        #expect(try URL(validatingOpenAPIServerURL: template).absoluteString == template)
    }

    @Test("each {name} is replaced by its variable's value")
    func variables() throws {
        let url = try URL(
            validatingOpenAPIServerURL: "https://{subdomain}.example.com:{port}/{baseURL}",
            variables: [
                .init(name: "subdomain", value: "test"),
                .init(name: "port", value: "443", allowedValues: ["443", "8443"]),
                .init(name: "baseURL", value: "v1"),
            ])
        #expect(url.absoluteString == "https://test.example.com:443/v1")
    }

    @Test("a value the variable does not allow is refused, in upstream's words")
    func disallowedValue() throws {
        let error = #expect(throws: ServerURLError.self) {
            try URL(
                validatingOpenAPIServerURL: "https://{subdomain}.example.com:{port}/{baseURL}",
                variables: [.init(name: "subdomain", value: "test"), .init(name: "port", value: "foo", allowedValues: ["443", "8443"])])
        }
        #expect(error == .invalidServerVariableValue(name: "port", value: "foo", allowedValues: ["443", "8443"]))
        #expect(error?.description == "Invalid server variable named: 'port', which has the value: 'foo', but the only allowed values are: '443', '8443'")
    }

    @Test("a string that names no URL is refused")
    func invalid() {
        let error = #expect(throws: ServerURLError.self) { try URL(validatingOpenAPIServerURL: "") }
        #expect(error?.description == "Invalid server URL: ")
    }
}
