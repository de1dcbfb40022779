import Foundation
import Testing
@testable import Lab
@testable import Scheduling

/// Files a user names are never read past their bound: a regular file's size decides before
/// any byte is read, and a stream is read only to one byte past it.
@Suite("Bounded file reads")
struct BoundedFileTests {
    /// A sparse file of `size` bytes: it takes no disk space, but reading it whole would take
    /// gigabytes of memory and tens of seconds.
    static func sparseFile(size: UInt64, named name: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bounded-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent(name)
        #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: size)
        try handle.close()
        return file
    }

    @Test("a regular file larger than the bound is refused by its size, unread")
    func sparse() throws {
        let file = try Self.sparseFile(size: 4 << 30, named: "huge.json")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        #expect(throws: BoundedFile.Failure.tooLarge(size: 4 << 30)) { try BoundedFile.read(file.path, limit: 1 << 20) }
    }

    @Test("an endless device is read only to one byte past the bound")
    func endless() {
        #expect(throws: BoundedFile.Failure.tooLarge(size: nil)) { try BoundedFile.read("/dev/zero", limit: 1 << 20) }
        #expect(BoundedFile.Failure.tooLarge(size: nil).reason(purpose: "config file", limit: 10) == "it goes on past 10 bytes; a config file may have at most 10")
    }

    @Test("a file at the bound is read whole; a folder or a missing file says why")
    func edges() throws {
        let file = try Self.sparseFile(size: 1 << 20, named: "exact.json")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        #expect(try BoundedFile.read(file.path, limit: 1 << 20) == Data(count: 1 << 20))
        #expect(throws: BoundedFile.Failure.tooLarge(size: 1 << 20)) { try BoundedFile.read(file.path, limit: (1 << 20) - 1) }
        #expect(throws: BoundedFile.Failure.unreadable("it is a folder")) { try BoundedFile.read(file.deletingLastPathComponent().path, limit: 10) }
        #expect(throws: BoundedFile.Failure.unreadable("No such file or directory")) { try BoundedFile.read(file.path + ".missing", limit: 10) }
    }

    @Test("a scenario's documentFile of 3 GiB is refused with its path and size")
    func hugeDocumentFile() throws {
        let file = try Self.sparseFile(size: 3 << 30, named: "huge.graphql")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let json = #"{"name": "mine", "chain": [{"interceptor": "AuthInterceptor"}], "operations": [{"name": "A", "documentFile": "huge.graphql"}]}"#
        #expect(throws: ScenarioError(path: "operations[0].documentFile", reason: "cannot read \(file.path): it has 3221225472 bytes; a document file may have at most 1048576")) {
            try ScenarioCodec.decode(Data(json.utf8), relativeTo: file.deletingLastPathComponent())
        }
    }
}
