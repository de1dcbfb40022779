import Inspector
import Lab
import TerminalUI
import Testing

/// The Detail pane masks credentials until `v` reveals them, and masks them again on a
/// second `v`.
@Suite("Secrets in the Detail pane")
struct DetailSecretsTests {
    static let secrets = ["at-1-1", "rt-1-1", "at-1-2", "rt-1-2"]

    static func leaked(_ screen: [String]) -> [String] {
        secrets.filter { secret in screen.contains { $0.contains(secret) } }
    }

    @Test func authorizationAtAHopIsMaskedUntilRevealed() async {
        let driver = Driver("token-expiry", size: Size(width: 140, height: 50))
        await driver.press(.char("n"))
        await driver.step(until: .hop(4, .pre))
        #expect(driver.state.selectedHop == 4)

        let masked = driver.screen()
        #expect(masked.contains { $0.contains("Hop 5 ResponseCodeInterceptor · pre-flight stop · held") })
        #expect(masked.contains { $0.replacing(/\ {2,}/, with: " ").contains(" Authorization Bearer ••••-1-1") })
        #expect(masked.contains { $0.contains("secrets masked · v to reveal") })
        #expect(Self.leaked(masked) == [])

        await driver.press(.char("v"))
        let revealed = driver.screen()
        #expect(revealed.contains { $0.replacing(/\ {2,}/, with: " ").contains(" Authorization Bearer at-1-1") })
        #expect(!revealed.contains { $0.contains("••••") })
        #expect(!revealed.contains { $0.contains("secrets masked · v to reveal") })
        #expect(Self.leaked(revealed) == ["at-1-1"])
        // The status line warns at once and keeps its key hints.
        #expect(revealed.last?.hasPrefix("⚠ secrets revealed  s step  c continue") == true)

        await driver.press(.char("v"))
        #expect(Self.leaked(driver.screen()) == [])
        #expect(driver.screen().last?.hasPrefix("s step  c continue") == true)
        #expect(driver.screen().contains { $0.replacing(/\ {2,}/, with: " ").contains(" Authorization Bearer ••••-1-1") })
    }

    @Test("certificates that go unchecked (--insecure) are the status line's first warning, before revealed secrets")
    func unverifiedTLSIsOnTheStatusLine() {
        let driver = Driver("token-expiry", size: Size(width: 140, height: 50))
        driver.state.lab.tlsUnverified = true
        let line = driver.screen().last ?? ""
        #expect(line.hasPrefix("⚠ TLS not verified  n new  b breakpoint  Tab pane  Enter open  q quit  "), "\(line)")
        driver.state.revealSecrets = true
        let both = driver.screen().last ?? ""
        #expect(both.hasPrefix("⚠ TLS not verified  ⚠ secrets revealed  n new  b breakpoint  Tab pane  Enter open  q quit  "), "\(both)")
    }

    @Test func theRefreshRequestsFormBodyIsMaskedUntilRevealed() async {
        let driver = Driver("token-expiry", size: Size(width: 140, height: 50))
        await driver.press(.char("n"))
        await driver.step(until: .refresh)
        #expect(driver.state.selectedStop?.place == .refresh)

        let masked = driver.screen()
        #expect(masked.contains { $0.contains("TokenManager refresh · stop · held · attempt 1 of 1") })
        #expect(masked.contains { $0.contains("refresh_token  ••••-1-1") })
        #expect(Self.leaked(masked) == [])

        await driver.press(.char("v"))
        let revealed = driver.screen()
        #expect(revealed.contains { $0.contains("refresh_token  rt-1-1") })
        #expect(Self.leaked(revealed) == ["rt-1-1"])
    }
}
