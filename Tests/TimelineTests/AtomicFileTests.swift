import Foundation
import Testing
@testable import Timeline

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The temporary file an export is written through: a name nobody can guess, created only
/// if nothing of that name exists, never through a link.
@Suite("AtomicFile's temporary file")
final class AtomicFileTests {
    let folder: String

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("chainlab-atomic-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: folder)
    }

    func path(_ name: String) -> String { (folder as NSString).appendingPathComponent(name) }

    func contents(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test("names are 12 characters from 62 drawn at random: 2,000 of them are all different and use every character")
    func namesAreUnpredictable() {
        let alphabet = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let suffixes = (0..<2_000).map { _ in AtomicFile.randomSuffix() }
        #expect(suffixes.allSatisfy { $0.count == 12 && $0.allSatisfy(alphabet.contains) })
        #expect(Set(suffixes).count == 2_000)
        // 24,000 draws from 62 characters: each expected about 387 times.
        #expect(Set(suffixes.joined()) == alphabet)
    }

    @Test("a link or a file already at the name is never used: the next name is tried, and what was there stays")
    func existingNamesAreSkipped() throws {
        let destination = path("trace.json")
        let victim = path("victim")
        try "precious".write(toFile: victim, atomically: false, encoding: .utf8)
        #expect(symlink(victim, path(".trace.json.AAAAAAAAAAAA")) == 0)
        try "planted".write(toFile: path(".trace.json.BBBBBBBBBBBB"), atomically: false, encoding: .utf8)
        var names = ["AAAAAAAAAAAA", "BBBBBBBBBBBB", "CCCCCCCCCCCC"][...]
        let (descriptor, temporary) = try AtomicFile.createTemporary(next: destination, mode: 0o600, shownAs: destination) { names.removeFirst() }
        defer { close(descriptor) }
        #expect(temporary == path(".trace.json.CCCCCCCCCCCC"))
        #expect(names.isEmpty)
        #expect(contents(victim) == "precious")
        #expect(contents(path(".trace.json.BBBBBBBBBBBB")) == "planted")
        var status = stat()
        #expect(lstat(temporary, &status) == 0)
        #expect(status.st_mode & S_IFMT == S_IFREG)
        #expect(status.st_mode & 0o077 == 0)
        #expect(status.st_size == 0)
    }

    @Test("a dangling link at the name is not followed: the file it points to is never created")
    func danglingLinkIsNotFollowed() throws {
        let destination = path("trace.json")
        let target = path("would-be-created")
        #expect(symlink(target, path(".trace.json.AAAAAAAAAAAA")) == 0)
        var names = ["AAAAAAAAAAAA", "DDDDDDDDDDDD"][...]
        let (descriptor, temporary) = try AtomicFile.createTemporary(next: destination, mode: nil, shownAs: destination) { names.removeFirst() }
        close(descriptor)
        #expect(temporary == path(".trace.json.DDDDDDDDDDDD"))
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test("after 16 names that all exist it gives up with an error instead of using one")
    func givesUpAfterSixteenTakenNames() throws {
        let destination = path("trace.json")
        try "planted".write(toFile: path(".trace.json.AAAAAAAAAAAA"), atomically: false, encoding: .utf8)
        var calls = 0
        #expect(throws: FileWriteError(path: destination, reason: "cannot create a file in the folder \(folder): File exists")) {
            _ = try AtomicFile.createTemporary(next: destination, mode: nil, shownAs: destination) {
                calls += 1
                return "AAAAAAAAAAAA"
            }
        }
        #expect(calls == 16)
        #expect(contents(path(".trace.json.AAAAAAAAAAAA")) == "planted")
    }

    @Test("a whole write leaves only the file: the temporary name is gone after the rename")
    func writeLeavesNoTemporary() throws {
        let destination = path("trace.json")
        try AtomicFile.write("one", to: destination)
        try AtomicFile.write("two", to: destination)
        #expect(contents(destination) == "two")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["trace.json"])
    }
}
