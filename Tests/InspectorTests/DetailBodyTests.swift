import Foundation
import Inspector
import Lab
import TerminalUI
import Testing

@Suite("Readable bodies and headers in Detail")
struct DetailBodyTests {
    /// The rows of Detail's pane (between its borders), trailing spaces dropped.
    static func detail(_ driver: Driver) -> [String] {
        let screen = driver.screen()
        guard let top = screen.firstIndex(where: { $0.contains("┌ Hop") || $0.contains("┌ TokenManager") }) else { return [] }
        let column = screen[top].distance(from: screen[top].startIndex, to: screen[top].range(of: "┌ ", options: .backwards)!.lowerBound)
        return screen[(top + 1)...].prefix { !$0.dropFirst(column).hasPrefix("└") }.map { line in
            String(line.dropFirst(column + 1).dropLast()).replacing(/[\ │]+$/, with: "")
        }
    }

    @Test("a JSON result is pretty-printed in colour, and f folds it below the top two levels")
    func prettyJSON() async {
        let driver = Driver()
        await driver.press(.char("n"), .char("c"))
        #expect(Self.detail(driver).prefix(9) == [
            "body (46 bytes)", "{", "  \"data\": {", "    \"hero\": {", "      \"id\": \"2001\",", "      \"name\": \"R2-D2\"", "    }", "  }", "}",
        ])
        var buffer = Buffer(size: driver.state.size)
        Inspector.render(driver.state, into: &buffer)
        let row = buffer.lines.firstIndex { $0.contains("\"name\": \"R2-D2\"") }!
        let column = Array(buffer.lines[row]).firstIndex(of: "\"")!
        #expect(buffer[column, row].style.foreground == .cyan, "keys are cyan")
        #expect(buffer[column + 8, row].style.foreground == .green, "strings are green")
        await driver.press(.char("f"))
        #expect(Self.detail(driver).prefix(6) == ["body (46 bytes) · folded (f unfolds)", "{", "  \"data\": {", "    \"hero\": {…2}", "  }", "}"])
        expectSnapshot(driver.screen(), named: "detail-folded-120x40")
    }

    @Test("the cache step's post-flight shows the records it wrote, key → fields")
    func cacheWriteRecords() async {
        let driver = Driver()
        await driver.press(.char("n"), .char("c"), .tab, .char("j"), .char("j"), .char("j"), .char("l"))
        #expect(Self.detail(driver).prefix(12) == [
            "cache write: the records the parser made, key → fields",
            "body (91 bytes)", "{", "  \"Hero:2001\": {", "    \"id\": \"2001\",", "    \"name\": \"R2-D2\"", "  },",
            "  \"QUERY_ROOT\": {", "    \"hero\": {", "      \"$reference\": \"Hero:2001\"", "    }", "  }",
        ])
    }

    @Test("folded JSON at 80x24 and 160x48")
    func foldedSnapshots() async {
        for size in [Size(width: 80, height: 24), Size(width: 160, height: 48)] {
            let driver = Driver(size: size)
            await driver.press(.char("n"), .char("c"), .char("f"))
            expectSnapshot(driver.screen(), named: "detail-folded-\(size.width)x\(size.height)")
        }
    }

    @Test("GraphQL hops show the document and variables; headers are an aligned table with this hop's changes marked")
    func graphQLAndHeaders() async {
        let driver = Driver()
        await driver.press(.char("n"), .char("c"), .tab, .char("j"), .char("h"))
        #expect(Self.detail(driver) == [
            "POST https://lab.chainlab.local/graphql",
            "+ Authorization  Bearer ••••-1-1",
            "GraphQL request (as AuthInterceptor handed it on)",
            "operation HeroQuery",
            "document",
            "  query HeroQuery { hero { id name } }",
            "extensions",
            "  {",
            "    \"clientLibrary\": {",
            "      \"name\": \"apollo-ios\",",
            "      \"version\": \"2.4.0\"",
            "    }",
            "  }",
            "secrets masked · v to reveal",
        ], "no variables: the 2.4 body leaves them out; the client names its library, as ApolloClient does by default")
        await driver.press(.char("j"), .char("j"), .char("j"), .char("j"))
        #expect(Self.detail(driver).prefix(5) == [
            "POST https://lab.chainlab.local/graphql",
            "  Content-Type   application/json",
            "  Accept         multipart/mixed;deferSpec=20220824,application/graphql-response+json,application/json",
            "  Authorization  Bearer ••••-1-1",
            "body (147 bytes)",
        ])
    }

    @Test("a form body is a table of its fields, secrets masked")
    func formTable() async {
        let driver = Driver("token-expiry")
        await driver.press(.char("n"), .char("c"), .char("["), .tab, .char("G"), .char("h"))
        #expect(Self.detail(driver) == [
            "POST https://lab.chainlab.local/oauth/token",
            "  Content-Type  application/x-www-form-urlencoded",
            "body (45 bytes)",
            "grant_type     refresh_token",
            "refresh_token  ••••-1-1",
            "secrets masked · v to reveal",
        ])
    }

    @Test("Ctrl-F searches Detail: matches counted and highlighted, Down moves to the next, Esc clears")
    func search() async {
        let driver = Driver(size: Size(width: 120, height: 40))
        await driver.press(.char("n"), .char("c"), .tab)
        for _ in 0..<5 { await driver.press(.char("j")) }
        await driver.press(.char("h"), .ctrl("f"), .char("H"), .char("e"), .char("r"), .char("o"))
        #expect(driver.state.detailSearch == "Hero")
        var buffer = Buffer(size: driver.state.size)
        Inspector.render(driver.state, into: &buffer)
        #expect(buffer.lines[38].hasPrefix("search Detail: Hero"))
        #expect(buffer.lines[38].hasSuffix("1 of 3 · Enter/Down next · Up/Ctrl-P previous · Esc clears"))
        let row = buffer.lines.firstIndex { $0.contains("operation HeroQuery") }!
        let column = Array(buffer.lines[row]).firstIndex(of: "H")!
        #expect(buffer[column, row].style.background == .yellow, "the current match is highlighted")
        await driver.press(.down)
        #expect(driver.state.detailMatch == 1)
        await driver.press(.escape)
        #expect(driver.state.detailSearch == "" && driver.state.modal == nil)
    }

    @Test("the header editor masks secret values until Ctrl-R (or v before opening it), and says when they are revealed")
    func editorMasksSecrets() async {
        let driver = Driver(size: Size(width: 100, height: 30))
        await driver.press(.char("n"))
        await driver.step(until: .hop(4, .pre))
        await driver.press(.char("e"))
        var screen = driver.screen()
        #expect(screen.contains { $0.contains("Authorization") && $0.contains("Bearer ••••-1-1") })
        #expect(!screen.contains { $0.contains("at-1-1") && !$0.contains("••••") })
        #expect(screen.contains { $0.contains("secrets masked · Ctrl-R reveals · Enter apply") })
        await driver.press(.ctrl("r"))
        screen = driver.screen()
        #expect(screen.contains { $0.contains("Bearer at-1-1") })
        #expect(screen.contains { $0.contains("⚠ secrets revealed · Ctrl-R masks") })
        await driver.press(.escape, .char("v"), .char("e"))
        #expect(driver.screen().contains { $0.contains("Bearer at-1-1") }, "v before opening reveals them in the editor too")
        #expect(driver.screen().last?.hasPrefix("⚠ secrets revealed  Enter apply  Esc cancel") == true, "the status line says so, then offers the editor's keys")
    }
}
