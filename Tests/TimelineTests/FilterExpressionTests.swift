import ChainKit
import Foundation
import Testing
@testable import Timeline
@testable import TimelineFilter

/// The filter language: what each test reads, how operators bind, and where errors point.
@Suite("Filter expressions")
struct FilterExpressionTests {
    static func event(
        _ request: Int = 1, attempt: Int = 1, hop: Int = 0, name: String = "AuthInterceptor", kind: HopKind = .graphql,
        phase: Phase = .preflight, snapshot: HopSnapshot = .empty, detail: String? = nil
    ) -> TimelineEvent {
        TimelineEvent(time: 0, request: request, attempt: attempt, hop: hop, name: name, kind: kind, phase: phase, snapshot: snapshot, detail: detail)
    }

    /// A HeroQuery that got 401, refreshed and succeeded on attempt 2 with 200.
    static let refreshed = FilterSubject(
        operation: "HeroQuery",
        events: [
            event(hop: 1, name: "AuthInterceptor", snapshot: Fixtures.authorizedRequest),
            event(hop: 4, name: "transport", kind: .transport, phase: .send, snapshot: Fixtures.authorizedRequest),
            event(hop: 4, name: "transport", kind: .transport, phase: .receive, snapshot: HopSnapshot(status: 401)),
            event(hop: 3, name: "ResponseCodeInterceptor", phase: .error, snapshot: HopSnapshot(error: "ResponseCodeError: 401")),
            event(hop: TimelineEvent.noHop, name: "TokenManager", kind: .auth, phase: .refresh, snapshot: HopSnapshot(status: 200)),
            event(attempt: 2, hop: 4, name: "transport", kind: .transport, phase: .receive, snapshot: Fixtures.okResponse),
        ],
        results: ["server"])

    /// A RenameHero answered from the cache, held once and edited.
    static let cached = FilterSubject(
        operation: "RenameHero",
        events: [
            event(hop: 1, name: "AuthInterceptor", phase: .paused, detail: "breakpoint · pre-flight"),
            event(hop: 1, name: "AuthInterceptor", phase: .edited, snapshot: Fixtures.plainRequest, detail: "request headers edited · pre-flight"),
            event(hop: 2, name: "cache", kind: .cache, phase: .cacheHit),
        ],
        results: ["cache"], hasFinding: true)

    static func matches(_ text: String, _ subject: FilterSubject) throws -> Bool {
        try FilterExpression(parsing: text).matches(subject)
    }

    @Test("each test reads what it names", arguments: [
        ("~op HeroQuery", true, false), ("~op hero", true, true), ("~op ^Rename", false, true),
        ("~c 401", true, false), ("~c 4xx", true, false), ("~c 2xx", true, false), ("~c 20x", true, false), ("~c 5xx", false, false),
        ("~m POST", true, true), ("~m post", true, true), ("~m GET", false, false),
        ("~u lab\\.local/graphql", true, true), ("~u /rest/", false, false),
        ("~h Authorization", true, false), ("~h 'Bearer abc'", true, false), ("~h set-cookie", true, false), ("~h ^x-nothing", false, false),
        ("~b hero", true, true), ("~b R2-D2", true, false), ("~b \"name\\\":\"", true, false),
        ("~hop transport", true, false), ("~hop ^cache$", false, true), ("~hop TokenManager", false, false),
        ("~retry", true, false), ("~refresh", true, false), ("~err", true, false), ("~held", false, true),
        ("~edited", false, true), ("~cache", false, true), ("~finding", false, true),
    ])
    func tests(_ text: String, refreshed: Bool, cached: Bool) throws {
        #expect(try Self.matches(text, Self.refreshed) == refreshed)
        #expect(try Self.matches(text, Self.cached) == cached)
    }

    @Test("! binds tighter than &, and & tighter than |; parentheses regroup")
    func precedence() throws {
        #expect(try Self.matches("~cache | ~retry & ~err", Self.refreshed) == true)
        #expect(try Self.matches("~cache | ~retry & ~held", Self.refreshed) == false)
        #expect(try Self.matches("~retry | ~cache & ~held", Self.refreshed) == true)
        #expect(try Self.matches("(~retry | ~cache) & ~held", Self.refreshed) == false)
        #expect(try Self.matches("!~cache & ~retry", Self.refreshed) == true)
        #expect(try Self.matches("!(~cache & ~retry)", Self.cached) == true)
        #expect(try Self.matches("!~retry", Self.refreshed) == false)
        #expect(try Self.matches("!!~retry", Self.refreshed) == true)
        #expect(try FilterExpression(parsing: "~cache | ~retry & ~err").root
            == .or(.flag(.cache), .and(.flag(.retry), .flag(.err))))
        #expect(try FilterExpression(parsing: "!~cache & ~retry").root == .and(.not(.flag(.cache)), .flag(.retry)))
        #expect(try FilterExpression(parsing: "~retry | ~err | ~held").root == .or(.or(.flag(.retry), .flag(.err)), .flag(.held)))
        #expect(try FilterExpression(parsing: "~retry & ~err & ~held").root == .and(.and(.flag(.retry), .flag(.err)), .flag(.held)))
    }

    @Test("a failed request matches ~err without an error event")
    func failedIsError() throws {
        let failed = FilterSubject(operation: "HeroQuery", events: [], failed: true)
        #expect(try Self.matches("~err", failed))
        #expect(try !Self.matches("~err", FilterSubject(operation: "HeroQuery", events: [])))
    }

    @Test("errors say where and what was expected", arguments: [
        ("", 1, "expected a filter such as ~op NAME or ~c 401, or ! or (, found the end"),
        ("   ", 4, "expected a filter such as ~op NAME or ~c 401, or ! or (, found the end"),
        ("HeroQuery", 1, "expected a filter such as ~op NAME or ~c 401, or ! or (, found 'HeroQuery'"),
        ("~op", 4, "expected an operation name after ~op, found the end"),
        ("~op &", 5, "expected an operation name after ~op, found '&'"),
        ("~c 4", 4, "expected a status code such as 401 or 4xx after ~c, found '4'"),
        ("~c 0xx", 4, "expected a status code such as 401 or 4xx after ~c, found '0xx'"),
        ("~c x01", 4, "expected a status code such as 401 or 4xx after ~c, found 'x01'"),
        ("~m PO/ST", 4, "expected a method such as POST after ~m, found 'PO/ST'"),
        ("~u", 3, "expected a URL pattern after ~u, found the end"),
        ("~h", 3, "expected a header pattern after ~h, found the end"),
        ("~b ''", 4, "expected a body pattern after ~b, found ''"),
        ("~hop", 5, "expected a hop name after ~hop, found the end"),
        ("~zz 1", 1, "unknown filter '~zz'; expected one of ~op, ~c, ~m, ~u, ~h, ~b, ~hop, ~retry, ~refresh, ~err, ~held, ~edited, ~cache, ~finding"),
        ("~retry ~err", 8, "expected &, | or the end, found '~err'"),
        ("~retry &", 9, "expected a filter such as ~op NAME or ~c 401, or ! or (, found the end"),
        ("| ~retry", 1, "expected a filter such as ~op NAME or ~c 401, or ! or (, found '|'"),
        ("!", 2, "expected a filter such as ~op NAME or ~c 401, or ! or (, found the end"),
        ("(~retry", 8, "expected ')' to close the '(' at 1, found the end"),
        ("(~retry | (~err)", 17, "expected ')' to close the '(' at 1, found the end"),
        ("~retry)", 7, "found ')' without a matching '('"),
        ("()", 2, "expected a filter such as ~op NAME or ~c 401, or ! or (, found ')'"),
        ("~op \"Hero", 10, "expected \" to close the quoted text at 5"),
        ("~u 'a(b'", 4, "expected a regular expression, found 'a(b': character 4: expected ')' to close the '(' at character 2"),
    ])
    func errors(_ text: String, position: Int, reason: String) {
        #expect(throws: FilterSyntaxError(position: position, reason: reason)) { try FilterExpression(parsing: text) }
    }

    @Test("a pattern that backtracking engines never finish is one pass over the text in every test that takes one", arguments: ["~op", "~u", "~h", "~b", "~hop"])
    func noBacktracking(_ test: String) throws {
        let text = String(repeating: "a", count: 4000)
        var headers = HTTPFields()
        try headers.append("X-Text", text)
        let snapshot = HopSnapshot(url: text, headers: headers, body: BodyPreview(text: text, byteCount: 4000, isTruncated: false))
        let subject = FilterSubject(operation: text, events: [Self.event(hop: 1, name: text, snapshot: snapshot)])
        #expect(try !Self.matches("\(test) '(.*.*)*QQ'", subject))
        #expect(try Self.matches("\(test) '(.*.*)*aa$'", subject))
    }

    @Test("patterns and expressions are bounded in length")
    func bounds() {
        let long = String(repeating: "a", count: FilterExpression.maximumPatternLength + 1)
        #expect(throws: FilterSyntaxError(position: 5, reason: "the pattern has 257 characters; at most 256")) { try FilterExpression(parsing: "~op \(long)") }
        let huge = String(repeating: "~retry | ", count: 200) + "~err"
        #expect(throws: FilterSyntaxError(position: 1025, reason: "the expression has \(huge.count) characters; at most 1024")) { try FilterExpression(parsing: huge) }
    }

    @Test("quoted text keeps spaces, operators and escaped quotes; errors escape what they show")
    func quoting() throws {
        let subject = FilterSubject(operation: "Hero & \"Friends\" | more", events: [])
        #expect(try Self.matches(#"~op "Hero & \"Friends\" \| more""#, subject))
        #expect(try Self.matches(#"~op 'Hero & "Friends"'"#, subject))
        #expect(throws: FilterSyntaxError(position: 1, reason: "expected a filter such as ~op NAME or ~c 401, or ! or (, found 'a\\e[31m'")) {
            try FilterExpression(parsing: "a\u{1B}[31m")
        }
    }

    @Test("an expression compares by its text and prints as it was written")
    func identity() throws {
        let one = try FilterExpression(parsing: "~c 401 & ~op Hero")
        #expect(one == (try FilterExpression(parsing: "~c 401 & ~op Hero")))
        #expect(one != (try FilterExpression(parsing: "~op Hero & ~c 401")))
        #expect(one.description == "~c 401 & ~op Hero")
    }
}
