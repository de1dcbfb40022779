public import Foundation

/// Reads a file a user named, never more than a bound: a regular file's size is checked
/// before any of it is read, and anything else (a FIFO, `/dev/zero`, a pipe from `<(…)`)
/// is read only up to one byte past the bound.
public enum BoundedFile {
    /// Why a file was not read.
    public enum Failure: Error, Sendable, Equatable {
        /// It could not be opened or read; the system's reason.
        case unreadable(String)
        /// It has more than the bound; `size` is the file's size when it is a regular file,
        /// nil for a stream that went on past the bound.
        case tooLarge(size: Int?)

        /// What went wrong, for a message that has already named the file: `purpose` is what
        /// the file is for ("scenario file"), `limit` the bound it was read with.
        public func reason(purpose: String, limit: Int) -> String {
            switch self {
            case .unreadable(let reason): reason
            case .tooLarge(let size?): "it has \(size) bytes; a \(purpose) may have at most \(limit)"
            case .tooLarge(nil): "it goes on past \(limit) bytes; a \(purpose) may have at most \(limit)"
            }
        }
    }

    /// The contents of `path`, at most `limit` bytes.
    public static func read(_ path: String, limit: Int) throws(Failure) -> Data {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadable(String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .unreadable(String(cString: strerror(errno))) }
        switch status.st_mode & S_IFMT {
        case S_IFDIR: throw .unreadable("it is a folder")
        case S_IFREG where status.st_size > limit: throw .tooLarge(size: Int(status.st_size))
        default: break
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
        var data = Data()
        while data.count <= limit {
            let chunk: Data?
            do {
                chunk = try handle.read(upToCount: min(64 << 10, limit + 1 - data.count))
            } catch {
                throw .unreadable((error as NSError).localizedDescription)
            }
            guard let chunk, !chunk.isEmpty else { return data }
            data.append(chunk)
        }
        throw .tooLarge(size: nil)
    }
}
