import ChainKit
import Testing
import Timeline
import Exports

@Suite struct TextTraceTests {
    @Test func oneLinePerEvent() {
        #expect(TextTrace.lines(Fixtures.retriedRequest, masking: .masked) == [
            "  0.000s #1.1 ↓ MaxRetryInterceptor preflight",
            "  0.000s #1.1   ↓ AuthInterceptor preflight +Authorization",
            "  0.001s #1.1     ↓ transport send POST /graphql",
            "  0.013s #1.1     ↑ transport receive 401",
            "  0.013s #1.1   ↻ AuthInterceptor retry 401 (token expired)",
            "  0.020s #1.2 ↓ MaxRetryInterceptor preflight",
            "  0.020s #1.2   ↓ AuthInterceptor preflight +Authorization",
            "  0.021s #1.2     ↓ transport send POST /graphql",
            "  0.033s #1.2     ↑ transport receive 200",
            "  0.034s #1.2   ↑ AuthInterceptor postflight 200",
            "  0.034s #1.2 ↑ MaxRetryInterceptor postflight 200",
            "  1.000s #2.1     ↓ transport send POST /graphql",
            " 31.000s #2.1     ✕ transport error timed out after 30s",
        ])
    }

    @Test func hostileTextIsEscaped() {
        let event = TimelineEvent(
            time: 1.5, request: 12, attempt: 3, hop: 1, name: "Evil\u{202E}Interceptor", kind: .http, phase: .error,
            snapshot: HopSnapshot(error: "\u{1B}]2;PWNED\u{07}"), diff: HeaderDiff(added: ["X-\u{1B}[31m"]),
            detail: "note\u{9B}")
        let text = TextTrace.render([event], masking: .masked)
        #expect(text == "  1.500s #12.3   ✕ Evil\\u{202E}Interceptor error +X-\\e[31m \\e]2;PWNED\\x07 (note\\x9B)\n")
        #expect(!text.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" || $0 == "\u{202E}" || $0 == "\u{9B}" })
    }

    @Test("a hop deep in a long chain is indented at most 64 levels, so the trace grows linearly with the chain")
    func indentationIsCapped() {
        let deep = TimelineEvent(time: 0, request: 1, attempt: 1, hop: 10_000, name: "Deep", kind: .graphql, phase: .preflight)
        #expect(TextTrace.line(for: deep, masking: .masked) == "  0.000s #1.1 " + String(repeating: "  ", count: 64) + "↓ Deep preflight")
        let shallow = TimelineEvent(time: 0, request: 1, attempt: 1, hop: 2, name: "Shallow", kind: .graphql, phase: .preflight)
        #expect(TextTrace.line(for: shallow, masking: .masked) == "  0.000s #1.1     ↓ Shallow preflight")
    }
}
