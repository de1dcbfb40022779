import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a file could not be written; an existing file there is unchanged.
public struct FileWriteError: Error, Sendable, Hashable, CustomStringConvertible {
    public let path: String
    public let reason: String
    public var description: String { path.isEmpty ? "cannot write: \(reason)" : "cannot write \(path): \(reason)" }
}

/// Writes exports and recordings so that a failure never leaves a half-written file and
/// nothing that is not a file is replaced.
///
/// What `path` is decides how it is written:
///
/// | path | written |
/// | --- | --- |
/// | a regular file, or nothing yet | to a new temporary file in the same folder, then renamed over it |
/// | a symbolic link | as its final target (which may not exist yet); the link stays |
/// | `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N` | to that open descriptor |
/// | a character device or a FIFO (`/dev/null`, a terminal, a named pipe with a reader) | in place |
/// | a folder or a socket | refused |
///
/// The temporary file is `.NAME.` and 12 random characters, created with `O_EXCL` and
/// `O_NOFOLLOW` (an existing file or link of that name is never used), with the mode of
/// the file it replaces. Every byte is written and synced before the rename, so a full disk
/// or an I/O error is reported and the old file stays as it was.
public enum AtomicFile {
    /// Writes `text` to `path` as described above; `ownerOnly`: the file gets mode 0600
    /// whatever the one it replaces had, for secrets.
    public static func write(_ text: String, to path: String, ownerOnly: Bool = false) throws(FileWriteError) {
        try write(Data(text.utf8), to: path, mode: ownerOnly ? 0o600 : nil)
    }

    /// Writes `data` to `path` as described above.
    static func write(_ data: Data, to path: String, mode: mode_t? = nil) throws(FileWriteError) {
        guard !path.isEmpty else { throw FileWriteError(path: "", reason: "the file name is empty") }
        let destination: String
        switch try resolveLinks(path) {
        case .descriptor(let descriptor):
            try writeAll(data, to: descriptor, path: path)
            return
        case .path(let resolved): destination = resolved
        }
        var status = stat()
        if lstat(destination, &status) == 0 {
            switch status.st_mode & S_IFMT {
            case S_IFREG: try replace(destination, with: data, mode: mode ?? status.st_mode & 0o7777, shownAs: path)
            case S_IFCHR, S_IFIFO: try writeInPlace(destination, data, shownAs: path)
            default: throw FileWriteError(path: path, reason: refusal(for: status.st_mode))
            }
        } else if errno == ENOENT {
            try replace(destination, with: data, mode: mode, shownAs: path)
        } else {
            throw FileWriteError(path: path, reason: reason(errno))
        }
    }

    /// Checks, without writing, that ``write(_:to:)`` could write `path`: its
    /// folder exists and is writable for a file, a device or FIFO is writable, and it is
    /// not a folder or a socket. Commands call it before a run, so a bad path is reported
    /// before the work that fills it.
    public static func checkWritable(_ path: String) throws(FileWriteError) {
        guard !path.isEmpty else { throw FileWriteError(path: "", reason: "the file name is empty") }
        guard case .path(let destination) = try resolveLinks(path) else { return }
        var status = stat()
        guard lstat(destination, &status) == 0 else {
            guard errno == ENOENT else { throw FileWriteError(path: path, reason: reason(errno)) }
            try probeFolder(of: destination, shownAs: path)
            return
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: try probeFolder(of: destination, shownAs: path)
        case S_IFCHR, S_IFIFO:
            guard access(destination, W_OK) == 0 else { throw FileWriteError(path: path, reason: reason(errno)) }
        default: throw FileWriteError(path: path, reason: refusal(for: status.st_mode))
        }
    }

    /// Why a path of this kind is never written.
    static func refusal(for mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "it is a folder"
        case S_IFSOCK: "it is a socket; give a file, a FIFO, a device or '-'"
        default: "it is not a file, a FIFO or a character device"
        }
    }

    /// Creates and removes a temporary file next to `destination`: the one sure way to know
    /// that the folder takes new files (it may be read-only, full of inodes, or virtual).
    static func probeFolder(of destination: String, shownAs path: String) throws(FileWriteError) {
        let (descriptor, temporary) = try createTemporary(next: destination, mode: nil, shownAs: path)
        close(descriptor)
        unlink(temporary)
    }

    /// A new, empty temporary file in `destination`'s folder, open for writing: `.NAME.`
    /// and 12 random characters, created exclusively and never through a link.
    /// `suffix` is `randomSuffix` but in tests, which name the files it would pick.
    static func createTemporary(
        next destination: String, mode: mode_t?, shownAs path: String, suffix: () -> String = randomSuffix
    ) throws(FileWriteError) -> (descriptor: Int32, path: String) {
        let folder = Self.folder(of: destination)
        var status = stat()
        guard stat(folder, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            throw FileWriteError(path: path, reason: "the folder \(folder) does not exist")
        }
        let name = (destination as NSString).lastPathComponent
        for _ in 0..<16 {
            let temporary = (folder as NSString).appendingPathComponent(".\(name).\(suffix())")
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode ?? 0o666)
            if descriptor >= 0 { return (descriptor, temporary) }
            guard errno == EEXIST else { break }
        }
        // An existing folder that answers "no such file" to a new name is a virtual one (/proc, /sys).
        let cause = errno == ENOENT ? "it takes no new files" : reason(errno)
        throw FileWriteError(path: path, reason: "cannot create a file in the folder \(folder): \(cause)")
    }

    /// The descriptor `path` names when it is one of the process's own open descriptors
    /// (`/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1`): written there, so output redirected
    /// by the shell is appended to, not replaced behind its back.
    static func openDescriptor(named path: String) -> Int32? {
        switch path {
        case "/dev/stdout": return STDOUT_FILENO
        case "/dev/stderr": return STDERR_FILENO
        default:
            for prefix in ["/dev/fd/", "/proc/self/fd/"] where path.hasPrefix(prefix) {
                guard let number = Int32(path.dropFirst(prefix.count)), number > STDIN_FILENO, fcntl(number, F_GETFD) != -1 else { return nil }
                return number
            }
            return nil
        }
    }

    enum Destination: Equatable {
        case descriptor(Int32)
        case path(String)
    }

    /// Where `path` leads once every symbolic link in its last component is followed: one
    /// of the process's own descriptors, or the final target (which may not exist yet).
    static func resolveLinks(_ path: String) throws(FileWriteError) -> Destination {
        var current = path
        for _ in 0..<40 {
            if let descriptor = openDescriptor(named: current) { return .descriptor(descriptor) }
            var status = stat()
            guard lstat(current, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else { return .path(current) }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(current, &buffer, buffer.count - 1)
            guard count >= 0 else { throw FileWriteError(path: path, reason: reason(errno)) }
            let target = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = target.hasPrefix("/") ? target : (folder(of: current) as NSString).appendingPathComponent(target)
        }
        throw FileWriteError(path: path, reason: "too many levels of symbolic links")
    }

    static func folder(of path: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        return folder.isEmpty ? "." : folder
    }

    /// Writes `data` to a new temporary file next to `destination` and renames it over it.
    static func replace(_ destination: String, with data: Data, mode: mode_t?, shownAs path: String) throws(FileWriteError) {
        let (created, temporary) = try createTemporary(next: destination, mode: mode, shownAs: path)
        var descriptor = created
        do throws(FileWriteError) {
            // The umask narrowed the mode given to open; a replaced file keeps its own.
            if let mode, fchmod(descriptor, mode) != 0 { throw FileWriteError(path: path, reason: reason(errno)) }
            try writeAll(data, to: descriptor, path: path)
            guard fsync(descriptor) == 0 else { throw FileWriteError(path: path, reason: reason(errno)) }
            let closed = close(descriptor)
            descriptor = -1
            guard closed == 0 else { throw FileWriteError(path: path, reason: reason(errno)) }
            guard rename(temporary, destination) == 0 else { throw FileWriteError(path: path, reason: reason(errno)) }
        } catch {
            if descriptor >= 0 { close(descriptor) }
            unlink(temporary)
            throw error
        }
    }

    /// Opens a device or FIFO for writing and writes to it. A FIFO must already have a
    /// reader (it is opened without waiting, so nothing hangs on one nobody reads).
    static func writeInPlace(_ destination: String, _ data: Data, shownAs path: String) throws(FileWriteError) {
        let descriptor = open(destination, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            throw FileWriteError(path: path, reason: errno == ENXIO ? "it is a FIFO and nothing is reading it" : reason(errno))
        }
        defer { close(descriptor) }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        try writeAll(data, to: descriptor, path: path)
    }

    /// Writes every byte, retrying after signals and short writes.
    static func writeAll(_ data: Data, to descriptor: Int32, path: String) throws(FileWriteError) {
        let failure: Int32? = data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
        if let failure { throw FileWriteError(path: path, reason: reason(failure)) }
    }

    /// Twelve characters from the system's random source.
    static func randomSuffix() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<12).map { _ in alphabet[Int(generator.next(upperBound: UInt(alphabet.count)))] })
    }

    static func reason(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}

/// `write(2)`, which `AtomicFile.write` hides inside the enum.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(descriptor, bytes, count)
    #else
    Darwin.write(descriptor, bytes, count)
    #endif
}
