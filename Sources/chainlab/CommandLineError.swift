/// A problem with how chainlab was called or with a file it was given: reported on stderr
/// with what was wrong and what is valid, and the process exits with status 2.
struct CommandLineError: Error, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

/// The arguments after the subcommand, consumed front to back.
struct ArgumentList {
    private var remaining: [String]
    let command: String

    init(_ arguments: [String], command: String) {
        remaining = arguments
        self.command = command
    }

    var isEmpty: Bool { remaining.isEmpty }

    mutating func next() -> String? {
        remaining.isEmpty ? nil : remaining.removeFirst()
    }

    /// The value of `option`, which must follow it.
    mutating func value(for option: String) throws -> String {
        guard let value = next(), !value.hasPrefix("--") || value == "-" else {
            throw CommandLineError("\(option) needs a value; see 'chainlab \(command) --help'")
        }
        return value
    }
}
