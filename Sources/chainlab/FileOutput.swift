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

/// Refuses a run whose output would overwrite one of its inputs or another output: `x`,
/// `./x` and a link to `x` are one file. Files are compared by device and inode, a path
/// not there yet by its folder's real path and its name; devices, FIFOs and `-` are left
/// alone (two writers of `/dev/null` harm nothing).
func checkSeparate(outputs: [(option: String, path: String?)], inputs: [(option: String, path: String?)]) throws {
    let named = inputs.compactMap { input in input.path.map { (input.option, $0, FileIdentity($0)) } }
    var earlier: [(String, String, FileIdentity)] = []
    for case let (option, path?) in outputs {
        guard let identity = FileIdentity(path) else { continue }
        if let input = named.first(where: { $0.2 == identity }) {
            throw CommandLineError("\(option) \(VisibleEscapes.escape(path)) is the same file as \(input.0) \(VisibleEscapes.escape(input.1)); a run never writes over what it reads")
        }
        if let other = earlier.first(where: { $0.2 == identity }) {
            throw CommandLineError("\(option) \(VisibleEscapes.escape(path)) is the same file as \(other.0) \(VisibleEscapes.escape(other.1)); give each its own file")
        }
        earlier.append((option, path, identity))
    }
}

/// Which file a path names, for telling two paths to one file apart from two files.
private enum FileIdentity: Equatable {
    case file(device: UInt64, inode: UInt64)
    case planned(String)

    /// Nil for `-`, a device, a FIFO or a path whose folder does not exist.
    init?(_ path: String) {
        guard !path.isEmpty, path != "-" else { return nil }
        var status = stat()
        if stat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFREG else { return nil }
            self = .file(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
            return
        }
        let url = URL(fileURLWithPath: path)
        guard let folder = realpath(url.deletingLastPathComponent().path, nil) else { return nil }
        defer { free(folder) }
        self = .planned(String(cString: folder) + "/" + url.lastPathComponent)
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
