import Foundation
import Timeline

/// Writes `text` to `path` atomically, as a command-line error when it fails.
func writeAtomically(_ text: String, to path: String) throws {
    do {
        try AtomicFile.write(text, to: path)
    } catch {
        throw CommandLineError(error.description)
    }
}

/// The contents of `path`, or a clear error naming it.
func readFile(_ path: String, purpose: String) throws -> Data {
    guard let data = FileManager.default.contents(atPath: path) else {
        throw CommandLineError("cannot read \(purpose) \(path): no such file or not readable")
    }
    return data
}
