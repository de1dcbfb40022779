import Foundation

/// Writes `text` to `path` through a temporary file in the same folder and a rename, so a
/// failed write never leaves a half-written file behind.
func writeAtomically(_ text: String, to path: String) throws {
    let destination = URL(fileURLWithPath: path)
    let folder = destination.deletingLastPathComponent()
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue else {
        throw CommandLineError("cannot write \(path): the folder \(folder.path) does not exist")
    }
    let temporary = folder.appendingPathComponent(".\(destination.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).tmp")
    do {
        try Data(text.utf8).write(to: temporary)
    } catch {
        try? FileManager.default.removeItem(at: temporary)
        throw CommandLineError("cannot write \(path): \((error as NSError).localizedDescription)")
    }
    if rename(temporary.path, destination.path) != 0 {
        let reason = String(cString: strerror(errno))
        try? FileManager.default.removeItem(at: temporary)
        throw CommandLineError("cannot write \(path): \(reason)")
    }
}

/// The contents of `path`, or a clear error naming it.
func readFile(_ path: String, purpose: String) throws -> Data {
    guard let data = FileManager.default.contents(atPath: path) else {
        throw CommandLineError("cannot read \(purpose) \(path): no such file or not readable")
    }
    return data
}
