import Backend
import Lab
import Serve
import Testing

@Suite("serve: listen addresses")
struct ServeListenAddressTests {
    @Test(arguments: [
        ("127.0.0.1", true), ("127.8.9.10", true), ("::1", true), ("::ffff:127.0.0.1", true),
        ("0.0.0.0", false), ("192.168.1.20", false), ("::", false), ("fe80::1", false), ("::ffff:10.0.0.1", false),
    ])
    func loopbackIsRecognised(host: String, loopback: Bool) throws {
        let address = try #require(ListenAddress(host))
        #expect(address.isLoopback == loopback)
        #expect(address.host == host)
    }

    @Test(arguments: ["localhost", "", "127.0.0.1:80", "256.0.0.1", "[::1]", "example.com"])
    func namesAndMalformedAddressesAreRefused(host: String) {
        #expect(ListenAddress(host) == nil)
    }

    @Test func authorityBracketsIPv6() throws {
        #expect(try #require(ListenAddress("127.0.0.1")).authority(port: 4000) == "127.0.0.1:4000")
        #expect(try #require(ListenAddress("::1")).authority(port: 4000) == "[::1]:4000")
    }
}
