/// A filter's regular expression, searched without regard to case in time proportional to
/// the text's length times the pattern's size.
///
/// Patterns compile to a Thompson NFA, and a search runs every live state of it side by
/// side, one character at a time, so no input makes it backtrack: `(.*.*)*QQ` costs what
/// `QQ` costs, times its size. The syntax is the part of the usual one an NFA can run
/// (no backreferences, no lookaround):
///
/// ```
///  alternation := concat ('|' concat)*
///  concat      := (atom quantifier?)*
///  quantifier  := ('*' | '+' | '?' | '{n}' | '{n,}' | '{n,m}') '?'?
///  atom        := char | '.' | class | '\' escape | '^' | '$' | '(' alternation ')' | '(?:' alternation ')'
///  class       := '[' '^'? (char | char '-' char | '\' escape)+ ']'
///  escape      := d D w W s S b B t n r | any punctuation for itself
/// ```
///
/// `.` is any character but a line break; `^` and `$` are the start and end of the text
/// (`$` also before a final line break). A lazy `?` after a quantifier is accepted and
/// changes nothing: a search only says whether there is a match.
struct FilterPattern: Sendable, Hashable {
    let pattern: String
    private let program: [PatternStep]

    /// The most steps a pattern may compile to: a search does at most this much work per
    /// character of the text.
    static let maximumSteps = 2048
    /// The largest count `{n,m}` takes.
    static let maximumCount = 1000

    init(_ pattern: String) throws(FilterPatternError) {
        self.pattern = pattern
        var parser = PatternParser(scalars: Array(pattern.unicodeScalars))
        let node = try parser.parse()
        var compiler = PatternCompiler()
        try compiler.emit(node)
        try compiler.append(.match)
        program = compiler.program
    }

    /// Whether some part of `text` matches.
    func search(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        var search = PatternSearch(program: program, scalars: scalars)
        return search.run()
    }

    static func == (lhs: FilterPattern, rhs: FilterPattern) -> Bool { lhs.pattern == rhs.pattern }
    func hash(into hasher: inout Hasher) { hasher.combine(pattern) }
}

struct FilterPatternError: Error, Equatable {
    let reason: String
}

/// One instruction of a compiled pattern.
enum PatternStep: Sendable {
    /// One character, compared case-folded.
    case scalar(Unicode.Scalar)
    /// Any character but a line break.
    case any
    case set(ScalarSet)
    case assert(PatternAssertion)
    /// Go on at both places.
    case split(Int, Int)
    case jump(Int)
    case match
}

enum PatternAssertion: Sendable {
    case start, end, wordBoundary, notWordBoundary
}

/// A bracketed class or a class escape (`\d`, `\w`, `\s` and their negations).
struct ScalarSet: Sendable {
    enum Named: Sendable {
        case digit, word, space
        case notDigit, notWord, notSpace
    }

    var ranges: [ClosedRange<UInt32>] = []
    var named: [Named] = []
    var negated = false

    func contains(_ scalar: Unicode.Scalar) -> Bool {
        contains(exactly: scalar) != negated
    }

    /// Case-insensitive: the character, its lower case or its upper case is in the set.
    private func contains(exactly scalar: Unicode.Scalar) -> Bool {
        if holds(scalar) { return true }
        let lower = caseFolded(scalar)
        if lower != scalar, holds(lower) { return true }
        let upper = upperCased(scalar)
        return upper != scalar && holds(upper)
    }

    private func holds(_ scalar: Unicode.Scalar) -> Bool {
        ranges.contains { $0.contains(scalar.value) } || named.contains { $0.holds(scalar) }
    }
}

extension ScalarSet.Named {
    func holds(_ scalar: Unicode.Scalar) -> Bool {
        switch self {
        case .digit: scalar.properties.numericType == .decimal
        case .word: isWordScalar(scalar)
        case .space: scalar.properties.isWhitespace
        case .notDigit: scalar.properties.numericType != .decimal
        case .notWord: !isWordScalar(scalar)
        case .notSpace: !scalar.properties.isWhitespace
        }
    }
}

private func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
    scalar == "_" || scalar.properties.isAlphabetic || scalar.properties.numericType == .decimal
}

/// The character's lower case when that is one character; ASCII without a table.
private func caseFolded(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
    if scalar.isASCII {
        return (0x41...0x5A).contains(scalar.value) ? Unicode.Scalar(UInt8(scalar.value + 0x20)) : scalar
    }
    let mapping = scalar.properties.lowercaseMapping.unicodeScalars
    return mapping.count == 1 ? mapping.first! : scalar
}

private func upperCased(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
    if scalar.isASCII {
        return (0x61...0x7A).contains(scalar.value) ? Unicode.Scalar(UInt8(scalar.value - 0x20)) : scalar
    }
    let mapping = scalar.properties.uppercaseMapping.unicodeScalars
    return mapping.count == 1 ? mapping.first! : scalar
}

/// A parsed pattern, before it is compiled.
indirect enum PatternNode {
    case step(PatternStep)
    case concat([PatternNode])
    case alternate([PatternNode])
    /// `maximum` nil for no upper bound.
    case repeated(PatternNode, minimum: Int, maximum: Int?)
}

/// Reads a pattern; error reasons give the 1-based character position in it.
struct PatternParser {
    let scalars: [Unicode.Scalar]
    var index = 0

    mutating func parse() throws(FilterPatternError) -> PatternNode {
        let node = try alternation()
        if index < scalars.count {
            throw FilterPatternError(reason: "character \(index + 1): found ')' without a matching '('")
        }
        return node
    }

    private var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    private mutating func alternation() throws(FilterPatternError) -> PatternNode {
        var branches = [try concatenation()]
        while peek == "|" {
            index += 1
            branches.append(try concatenation())
        }
        return branches.count == 1 ? branches[0] : .alternate(branches)
    }

    private mutating func concatenation() throws(FilterPatternError) -> PatternNode {
        var items: [PatternNode] = []
        while let next = peek, next != "|", next != ")" {
            let start = index
            let atom = try atom()
            items.append(try quantified(atom, from: start))
        }
        return items.count == 1 ? items[0] : .concat(items)
    }

    private mutating func atom() throws(FilterPatternError) -> PatternNode {
        let start = index
        let scalar = scalars[index]
        index += 1
        switch scalar {
        case ".": return .step(.any)
        case "^": return .step(.assert(.start))
        case "$": return .step(.assert(.end))
        case "[": return .step(.set(try bracket(openedAt: start)))
        case "\\": return try escape(at: start, inClass: false)
        case "(":
            if peek == "?" {
                guard index + 1 < scalars.count, scalars[index + 1] == ":" else {
                    throw FilterPatternError(reason: "character \(start + 1): only (?: groups are supported; lookaround and flags are not")
                }
                index += 2
            }
            let inner = try alternation()
            guard peek == ")" else {
                throw FilterPatternError(reason: "character \(index + 1): expected ')' to close the '(' at character \(start + 1)")
            }
            index += 1
            return inner
        case "*", "+", "?", "{":
            throw FilterPatternError(reason: "character \(start + 1): '\(scalar)' follows nothing it could repeat")
        default: return .step(.scalar(caseFolded(scalar)))
        }
    }

    private mutating func quantified(_ atom: PatternNode, from start: Int) throws(FilterPatternError) -> PatternNode {
        guard let next = peek else { return atom }
        let bounds: (Int, Int?)
        switch next {
        case "*": index += 1; bounds = (0, nil)
        case "+": index += 1; bounds = (1, nil)
        case "?": index += 1; bounds = (0, 1)
        case "{": bounds = try counts()
        default: return atom
        }
        if case .step(.assert) = atom {
            throw FilterPatternError(reason: "character \(start + 1): an anchor cannot be repeated")
        }
        if peek == "?" { index += 1 }
        if let following = peek, "*+?{".unicodeScalars.contains(following) {
            throw FilterPatternError(reason: "character \(index + 1): '\(following)' follows a repetition; group it to repeat it again")
        }
        return .repeated(atom, minimum: bounds.0, maximum: bounds.1)
    }

    /// `{n}`, `{n,}` or `{n,m}`.
    private mutating func counts() throws(FilterPatternError) -> (Int, Int?) {
        let open = index
        index += 1
        let expected = FilterPatternError(reason: "character \(open + 1): expected a count such as {2}, {2,} or {2,5} of at most \(FilterPattern.maximumCount)")
        guard let minimum = number() else { throw expected }
        var maximum: Int? = minimum
        if peek == "," {
            index += 1
            maximum = peek == "}" ? nil : number()
            if maximum == nil, peek != "}" { throw expected }
        }
        guard peek == "}" else { throw expected }
        index += 1
        if let maximum, maximum < minimum {
            throw FilterPatternError(reason: "character \(open + 1): {\(minimum),\(maximum)} has its largest count below its smallest")
        }
        if minimum > FilterPattern.maximumCount || (maximum ?? 0) > FilterPattern.maximumCount { throw expected }
        return (minimum, maximum)
    }

    private mutating func number() -> Int? {
        var value = 0
        var digits = 0
        while let next = peek, ("0"..."9").contains(next), digits < 5 {
            value = value * 10 + Int(next.value - 0x30)
            digits += 1
            index += 1
        }
        return digits == 0 ? nil : value
    }

    private mutating func bracket(openedAt start: Int) throws(FilterPatternError) -> ScalarSet {
        var set = ScalarSet()
        if peek == "^" {
            set.negated = true
            index += 1
        }
        var first = true
        while true {
            guard let scalar = peek else {
                throw FilterPatternError(reason: "character \(index + 1): expected ']' to close the '[' at character \(start + 1)")
            }
            if scalar == "]" && !first { index += 1; return set }
            first = false
            let lower: Unicode.Scalar
            if scalar == "\\" {
                let escapeStart = index
                index += 1
                switch try escape(at: escapeStart, inClass: true) {
                case .step(.scalar(let literal)): lower = literal
                case .step(.set(let named)): set.named += named.named; continue
                default: continue
                }
            } else {
                if scalar == "[" {
                    throw FilterPatternError(reason: "character \(index + 1): '[' inside a class; write \\[ for the character")
                }
                lower = scalar
                index += 1
            }
            guard peek == "-", index + 1 < scalars.count, scalars[index + 1] != "]" else {
                set.ranges.append(lower.value...lower.value)
                continue
            }
            let dash = index
            index += 1
            var upper = scalars[index]
            index += 1
            if upper == "\\" {
                guard case .step(.scalar(let literal)) = try escape(at: index - 1, inClass: true) else {
                    throw FilterPatternError(reason: "character \(dash + 1): a range must end at a character")
                }
                upper = literal
            }
            guard lower.value <= upper.value else {
                throw FilterPatternError(reason: "character \(dash + 1): the range \(lower)-\(upper) runs backwards")
            }
            set.ranges.append(lower.value...upper.value)
        }
    }

    /// The escape whose `\` is at `start`; `index` is past the `\`.
    private mutating func escape(at start: Int, inClass: Bool) throws(FilterPatternError) -> PatternNode {
        guard let scalar = peek else {
            throw FilterPatternError(reason: "character \(start + 1): '\\' ends the pattern; write \\\\ for a backslash")
        }
        index += 1
        func named(_ kind: ScalarSet.Named) -> PatternNode { .step(.set(ScalarSet(named: [kind]))) }
        switch scalar {
        case "d": return named(.digit)
        case "D": return named(.notDigit)
        case "w": return named(.word)
        case "W": return named(.notWord)
        case "s": return named(.space)
        case "S": return named(.notSpace)
        case "t": return .step(.scalar("\t"))
        case "n": return .step(.scalar("\n"))
        case "r": return .step(.scalar("\r"))
        case "b" where !inClass: return .step(.assert(.wordBoundary))
        case "B" where !inClass: return .step(.assert(.notWordBoundary))
        default:
            guard !scalar.properties.isAlphabetic, !("0"..."9").contains(scalar) else {
                throw FilterPatternError(reason: "character \(start + 1): \\\(scalar) is not supported; escapes are \\d \\D \\w \\W \\s \\S \\b \\B \\t \\n \\r and \\ before punctuation")
            }
            return .step(.scalar(caseFolded(scalar)))
        }
    }
}

/// Lays a parsed pattern out as steps, refusing one that grows past `FilterPattern.maximumSteps`.
struct PatternCompiler {
    var program: [PatternStep] = []

    mutating func append(_ step: PatternStep) throws(FilterPatternError) {
        guard program.count < FilterPattern.maximumSteps else {
            throw FilterPatternError(reason: "the pattern is too expensive: it needs more than \(FilterPattern.maximumSteps) steps (counted repetition multiplies its group)")
        }
        program.append(step)
    }

    mutating func emit(_ node: PatternNode) throws(FilterPatternError) {
        switch node {
        case .step(let step): try append(step)
        case .concat(let items):
            for item in items { try emit(item) }
        case .alternate(let branches):
            var jumps: [Int] = []
            for branch in branches.dropLast() {
                let split = program.count
                try append(.split(split + 1, 0))
                try emit(branch)
                jumps.append(program.count)
                try append(.jump(0))
                program[split] = .split(split + 1, program.count)
            }
            try emit(branches[branches.count - 1])
            for jump in jumps { program[jump] = .jump(program.count) }
        case .repeated(let inner, let minimum, let maximum):
            for _ in 0..<minimum { try emit(inner) }
            guard let maximum else {
                let split = program.count
                try append(.split(split + 1, 0))
                try emit(inner)
                try append(.jump(split))
                program[split] = .split(split + 1, program.count)
                return
            }
            var splits: [Int] = []
            for _ in minimum..<maximum {
                splits.append(program.count)
                try append(.split(program.count + 1, 0))
                try emit(inner)
            }
            for split in splits { program[split] = .split(split + 1, program.count) }
        }
    }
}

/// One search: the live states at the current character, and the ones for the next.
struct PatternSearch {
    let program: [PatternStep]
    let scalars: [Unicode.Scalar]
    /// The position each step was last added at, so a step is live at most once per position.
    private var addedAt: [Int]
    private var current: [Int] = []
    private var next: [Int] = []
    private var pending: [Int] = []

    init(program: [PatternStep], scalars: [Unicode.Scalar]) {
        self.program = program
        self.scalars = scalars
        addedAt = Array(repeating: -1, count: program.count)
    }

    mutating func run() -> Bool {
        for position in 0...scalars.count {
            if add(0, at: position, toNext: false) { return true }
            guard position < scalars.count else { return false }
            let scalar = scalars[position]
            let folded = caseFolded(scalar)
            next.removeAll(keepingCapacity: true)
            for index in current.indices where consumes(program[current[index]], scalar, folded) {
                if add(current[index] + 1, at: position + 1, toNext: true) { return true }
            }
            swap(&current, &next)
        }
        return false
    }

    private func consumes(_ step: PatternStep, _ scalar: Unicode.Scalar, _ folded: Unicode.Scalar) -> Bool {
        switch step {
        case .scalar(let expected): expected == folded
        case .any: scalar != "\n" && scalar != "\r"
        case .set(let set): set.contains(scalar)
        default: false
        }
    }

    /// Adds `start` and every step it reaches without reading a character to the live steps
    /// at `position` (`next` or `current`); true when one of them is the match.
    private mutating func add(_ start: Int, at position: Int, toNext: Bool) -> Bool {
        pending.append(start)
        while let step = pending.popLast() {
            guard addedAt[step] != position else { continue }
            addedAt[step] = position
            switch program[step] {
            case .match:
                pending.removeAll(keepingCapacity: true)
                return true
            case .jump(let target): pending.append(target)
            case .split(let first, let second):
                pending.append(second)
                pending.append(first)
            case .assert(let assertion):
                if holds(assertion, at: position) { pending.append(step + 1) }
            default:
                if toNext { next.append(step) } else { current.append(step) }
            }
        }
        return false
    }

    private func holds(_ assertion: PatternAssertion, at position: Int) -> Bool {
        switch assertion {
        case .start: return position == 0
        case .end: return position == scalars.count || (position == scalars.count - 1 && scalars[position] == "\n")
        case .wordBoundary, .notWordBoundary:
            let before = position > 0 && isWordScalar(scalars[position - 1])
            let after = position < scalars.count && isWordScalar(scalars[position])
            return (before != after) == (assertion == .wordBoundary)
        }
    }
}
