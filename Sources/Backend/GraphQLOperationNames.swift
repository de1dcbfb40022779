/// The names of the operations a GraphQL document defines, found without a full parser:
/// a name that follows `query`, `mutation` or `subscription` outside any selection set,
/// string or comment.
enum GraphQLOperationNames {
    static func of(_ document: String) -> [String] {
        var scanner = Scanner()
        for scalar in document.unicodeScalars { scanner.consume(scalar) }
        scanner.finishWord()
        return scanner.names
    }

    private struct Scanner {
        var names: [String] = []
        var depth = 0
        var word = String.UnicodeScalarView()
        var afterKeyword = false
        var inComment = false
        var inString = false
        var escaping = false

        mutating func consume(_ scalar: Unicode.Scalar) {
            if inComment {
                if scalar == "\n" || scalar == "\r" { inComment = false }
                return
            }
            if inString {
                if escaping { escaping = false } else if scalar == "\\" { escaping = true } else if scalar == "\"" { inString = false }
                return
            }
            if isNameCharacter(scalar) {
                word.append(scalar)
                return
            }
            finishWord()
            switch scalar {
            case " ", "\t", "\n", "\r", ",", "\u{FEFF}": return
            case "{": depth += 1
            case "}": depth = max(0, depth - 1)
            case "#": inComment = true
            case "\"": inString = true
            default: break
            }
            afterKeyword = false
        }

        mutating func finishWord() {
            guard !word.isEmpty else { return }
            let text = String(word)
            word = String.UnicodeScalarView()
            if afterKeyword {
                names.append(text)
                afterKeyword = false
            } else if depth == 0, ["query", "mutation", "subscription"].contains(text) {
                afterKeyword = true
            }
        }

        private func isNameCharacter(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", "_": true
            default: false
            }
        }
    }
}
