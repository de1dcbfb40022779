import Testing
@testable import Timeline
@testable import TimelineFilter

/// The filters' own regular expressions: the syntax they take, what they refuse and why,
/// and that no pattern makes a search backtrack.
@Suite("Filter patterns")
struct FilterPatternTests {
    static func search(_ pattern: String, _ text: String) throws -> Bool {
        try FilterPattern(pattern).search(text)
    }

    @Test("each piece of the syntax matches what it should", arguments: [
        ("hero", "SuperHeroQuery", true), ("hero", "Hera", false),
        ("^Hero", "HeroQuery", true), ("^Hero", "SuperHero", false),
        ("Query$", "HeroQuery", true), ("Query$", "HeroQuery\n", true), ("Query$", "QueryHero", false),
        ("^$", "", true), ("a.c", "abc", true), ("a.c", "a\nc", false),
        ("colou?r", "color", true), ("colou?r", "colour", true), ("colou?r", "colouur", false),
        ("ab*c", "ac", true), ("ab+c", "ac", false), ("ab+c", "abbbc", true),
        ("^a{3}$", "aaa", true), ("^a{3}$", "aaaa", false), ("^a{2,}$", "aaaaa", true), ("^a{2,}$", "a", false),
        ("^a{1,2}$", "aa", true), ("^a{1,2}$", "aaa", false), ("^a{0,1}b", "b", true),
        ("^(ab|cd)+$", "abcdab", true), ("^(ab|cd)+$", "abce", false), ("^(?:x|y)z", "yz", true),
        ("[a-c]x", "Bx", true), ("[a-c]x", "dx", false), ("[^a-c]x", "dx", true), ("[^a-c]x", "ax", false),
        ("[]a]", "]", true), ("[a-]", "-", true), ("[\\]]", "]", true), ("[\\d_]+", "__", true),
        ("\\d{3}", "HTTP 401", true), ("\\d{3}", "HTTP 40", false), ("^\\D+$", "abc", true),
        ("\\w+:\\s\\S", "Authorization: Bearer", true), ("^\\W", "-x", true), ("^\\W", "x", false),
        ("\\bhero\\b", "the hero is", true), ("\\bhero\\b", "superhero", false), ("\\Bhero", "superhero", true),
        ("lab\\.local", "lab.local", true), ("lab\\.local", "labxlocal", false), ("a\\tb", "a\tb", true),
        ("a\\*", "a*", true), ("x|", "anything", true), ("R2-D2", "r2-d2", true),
        ("ÉCLAIR", "éclair", true), ("[à-ÿ]", "É", true),
        ("(a*)*b", "aaab", true), ("(a|)*c", "aac", true), ("a*?b", "aab", true), ("a{2}?", "aa", true),
    ] as [(String, String, Bool)])
    func syntax(_ pattern: String, _ text: String, _ expected: Bool) throws {
        #expect(try Self.search(pattern, text) == expected)
    }

    @Test("patterns that make a backtracking engine run for ages finish at once", arguments: [
        "(.*.*)*QQ", "(a+)+$b", "(a|aa)*c", "(x+x+)+y", "^(\\w+\\s?)*$!", "(a*)*(b*)*(a*)*(b*)*z",
    ])
    func noBacktracking(_ pattern: String) throws {
        let text = String(repeating: "a", count: 4096) + "\n" + String(repeating: "ab ", count: 1000)
        #expect(try Self.search(pattern, text) == false)
    }

    @Test("refused patterns say what is wrong and where", arguments: [
        ("a(b", "character 4: expected ')' to close the '(' at character 2"),
        ("ab)", "character 3: found ')' without a matching '('"),
        ("[ab", "character 4: expected ']' to close the '[' at character 1"),
        ("*a", "character 1: '*' follows nothing it could repeat"),
        ("a**", "character 3: '*' follows a repetition; group it to repeat it again"),
        ("^*", "character 1: an anchor cannot be repeated"),
        ("a{", "character 2: expected a count such as {2}, {2,} or {2,5} of at most 1000"),
        ("a{1001}", "character 2: expected a count such as {2}, {2,} or {2,5} of at most 1000"),
        ("a{3,2}", "character 2: {3,2} has its largest count below its smallest"),
        ("[z-a]", "character 3: the range z-a runs backwards"),
        ("(?=a)", "character 1: only (?: groups are supported; lookaround and flags are not"),
        ("(a)\\1", "character 4: \\1 is not supported; escapes are \\d \\D \\w \\W \\s \\S \\b \\B \\t \\n \\r and \\ before punctuation"),
        ("a\\", "character 2: '\\' ends the pattern; write \\\\ for a backslash"),
        ("(a{100}){100}", "the pattern is too expensive: it needs more than 2048 steps (counted repetition multiplies its group)"),
    ])
    func refusals(_ pattern: String, _ reason: String) {
        #expect(throws: FilterPatternError(reason: reason)) { try FilterPattern(pattern) }
    }

    @Test("the largest counts that fit in the step limit compile and match")
    func largestCounts() throws {
        #expect(try Self.search("^a{1000}$", String(repeating: "a", count: 1000)))
        #expect(try !Self.search("^a{1000}$", String(repeating: "a", count: 999)))
        #expect(try Self.search("(ab){1000}", String(repeating: "ab", count: 1000)))
    }
}
