import Foundation

/// Why a file could not be written; nothing was left behind.
public struct FileWriteError: Error, Sendable, Hashable, CustomStringConvertible {
    public let path: String
    public let reason: String
    public var description: String { "cannot write \(path): \(reason)" }
}

/// Writes files so that a failure never leaves a half-written one behind.
public enum AtomicFile {
    /// Writes `text` to `path` through a temporary file in the same folder and a rename.
    public static func write(_ text: String, to path: String) throws(FileWriteError) {
        let destination = URL(fileURLWithPath: path)
        let folder = destination.deletingLastPathComponent()
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw FileWriteError(path: path, reason: "the folder \(folder.path) does not exist")
        }
        let temporary = folder.appendingPathComponent(".\(destination.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).tmp")
        do {
            try Data(text.utf8).write(to: temporary)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw FileWriteError(path: path, reason: (error as NSError).localizedDescription)
        }
        if rename(temporary.path, destination.path) != 0 {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw FileWriteError(path: path, reason: reason)
        }
    }
}
