import Foundation
import Lab
import Timeline
import Vocabulary

/// Writes `text` where the user pointed `option` (`--output`, `--record`): standard output
/// for `-`, otherwise through ``AtomicFile``; a failure is a command-line error.
func writeOutput(_ text: String, to path: String, option: String) throws {
    do {
        try AtomicFile.write(text, to: try outputPath(path, option: option))
    } catch let error as FileWriteError {
        throw CommandLineError(error.description)
    }
}

/// Checks before a run that `path` can be written, so a bad `--output` or `--record` is
/// found before the work that fills it.
func checkOutput(_ path: String, option: String) throws {
    do {
        try AtomicFile.checkWritable(try outputPath(path, option: option))
    } catch let error as FileWriteError {
        throw CommandLineError(error.description)
    }
}

/// The file `option`'s value names: `-` is standard output; empty is refused.
private func outputPath(_ path: String, option: String) throws -> String {
    guard !path.isEmpty else { throw CommandLineError("\(option) needs a file name, got an empty one; use '-' for standard output") }
    return path == "-" ? "/dev/stdout" : path
}

/// The contents of `path`, at most `limit` bytes, or a clear error naming it. A regular
/// file's size is checked first, and anything else is read only to one byte past the limit,
/// so a huge file or an endless device is refused without being read.
func readFile(_ path: String, purpose: String, limit: Int) throws -> Data {
    do {
        return try BoundedFile.read(path, limit: limit)
    } catch {
        throw CommandLineError("cannot read \(purpose) \(VisibleEscapes.escape(path)): \(error.reason(purpose: purpose, limit: limit))")
    }
}

/// Writes `text` to standard output with write(2). A reader that went away (EPIPE: SIGPIPE is
/// ignored) loses the rest quietly, where `FileHandle.write` would stop the process.
func writeStandardOutput(_ text: String) {
    writeIgnoringFailure(text, to: STDOUT_FILENO)
}

/// Writes `text` to standard error, as ``writeStandardOutput(_:)`` does.
func writeStandardError(_ text: String) {
    writeIgnoringFailure(text, to: STDERR_FILENO)
}

private func writeIgnoringFailure(_ text: String, to descriptor: Int32) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress!, $0.count) }
        if written < 0, errno == EINTR { continue }
        guard written > 0 else { return }
        bytes = bytes.dropFirst(written)
    }
}
