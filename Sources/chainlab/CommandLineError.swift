/// A problem with how chainlab was called or with a file it was given: reported on stderr
/// with what was wrong and what is valid, and the process exits with status 2.
struct CommandLineError: Error, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}
