import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Where `--output` and `--record` write: files are replaced atomically, links are followed,
/// devices and FIFOs are written in place, and nothing that is not a file is replaced.
@Suite("Export targets")
struct ExportTargetTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("chainlab-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    func trace(_ arguments: String...) throws -> (status: Int32, stdout: String, stderr: String) {
        try runProcess(try builtChainlab().path, ["trace", "basics"] + arguments)
    }

    func fileType(_ path: String) -> mode_t {
        var status = stat()
        return lstat(path, &status) == 0 ? status.st_mode & S_IFMT : 0
    }

    /// The names in the test folder, to prove no temporary file was left behind.
    func names() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    @Test("'-' is standard output, byte for byte what no --output prints")
    func dashIsStandardOutput() throws {
        let plain = try trace()
        let dash = try trace("--output", "-")
        #expect(dash.status == 0)
        #expect(dash.stdout == plain.stdout)
        #expect(dash.stdout.hasPrefix("scenario basics\n"))
    }

    @Test("/dev/full fails with the device's error and exit 2; /dev/null is written, not replaced")
    func devices() throws {
        let full = try trace("--output", "/dev/full")
        #expect(full.status == 2)
        #expect(full.stderr == "chainlab: cannot write /dev/full: No space left on device\n")
        let null = try trace("--output", "/dev/null", "--record", "/dev/null")
        #expect(null.status == 0)
        #expect(null.stdout == "")
        #expect(fileType("/dev/null") == S_IFCHR)
    }

    @Test("a regular file is replaced with its mode kept and no temporary file left")
    func regularFile() throws {
        let output = path("out.txt")
        try "old".write(toFile: output, atomically: false, encoding: .utf8)
        #expect(chmod(output, 0o640) == 0)
        #expect(try trace("--output", output).status == 0)
        #expect(try String(contentsOfFile: output, encoding: .utf8) == trace().stdout)
        var status = stat()
        #expect(stat(output, &status) == 0 && status.st_mode & 0o7777 == 0o640)
        #expect(try names() == ["out.txt"])
    }

    @Test("a symbolic link stays a link and its target is replaced; a dangling link's target is created")
    func symbolicLinks() throws {
        let target = path("target.txt"), link = path("link.txt")
        try "old".write(toFile: target, atomically: false, encoding: .utf8)
        #expect(symlink("target.txt", link) == 0)
        #expect(try trace("--output", link).status == 0)
        #expect(fileType(link) == S_IFLNK)
        #expect(try String(contentsOfFile: target, encoding: .utf8).hasPrefix("scenario basics\n"))

        let dangling = path("dangling.txt")
        #expect(symlink("created.txt", dangling) == 0)
        #expect(try trace("--output", dangling).status == 0)
        #expect(fileType(dangling) == S_IFLNK)
        #expect(try String(contentsOfFile: path("created.txt"), encoding: .utf8).hasPrefix("scenario basics\n"))
        #expect(try names() == ["created.txt", "dangling.txt", "link.txt", "target.txt"])
    }

    @Test("a FIFO with a reader is written in place; one without is refused with exit 2 and stays a FIFO")
    func fifo() throws {
        let fifo = path("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let refused = try trace("--output", fifo)
        #expect(refused.status == 2)
        #expect(refused.stderr == "chainlab: cannot write \(fifo): it is a FIFO and nothing is reading it\n")

        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }
        #expect(try trace("--output", fifo).status == 0)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let count = read(reader, &buffer, buffer.count)
        #expect(count > 0)
        #expect(String(decoding: buffer[..<max(0, count)], as: UTF8.self) == (try trace().stdout))
        #expect(fileType(fifo) == S_IFIFO)
    }

    @Test("a folder, a socket and an empty name are refused before the run, with exit 2")
    func refused() throws {
        let socketPath = path("socket")
        let made = try runProcess("/usr/bin/python3", ["-c", "import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])", socketPath])
        #expect(made.status == 0)
        let cases: [([String], String)] = [
            (["--output", folder.path], "chainlab: cannot write \(folder.path): it is a folder\n"),
            (["--output", socketPath], "chainlab: cannot write \(socketPath): it is a socket; give a file, a FIFO, a device or '-'\n"),
            (["--output", ""], "chainlab: --output needs a file name, got an empty one; use '-' for standard output\n"),
            (["--output", "/proc/version"], "chainlab: cannot write /proc/version: cannot create a file in the folder /proc: it takes no new files\n"),
            (["--record", path("missing/rec.json")], "chainlab: cannot write \(path("missing/rec.json")): the folder \(path("missing")) does not exist\n"),
        ]
        for (arguments, message) in cases {
            let result = try runProcess(try builtChainlab().path, ["trace", "basics"] + arguments)
            #expect(result.status == 2)
            #expect(result.stderr == message)
            #expect(result.stdout == "", "the run started before the output was checked")
        }
        #expect(fileType(socketPath) == S_IFSOCK)
    }

    @Test("a write that fails half way (file size limit) is an error and the old file stays as it was")
    func failedWriteKeepsOldFile() throws {
        let output = path("trace.json")
        try "old contents".write(toFile: output, atomically: false, encoding: .utf8)
        // An ignored SIGXFSZ stays ignored across exec, so write(2) fails with EFBIG at 1 KiB.
        let script = "trap '' XFSZ; ulimit -f 1; exec \"$0\" trace basics --format json --output \"$1\""
        let result = try runProcess("/bin/sh", ["-c", script, try builtChainlab().path, output])
        #expect(result.status == 2)
        #expect(result.stderr == "chainlab: cannot write \(output): File too large\n")
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "old contents")
        #expect(try names() == ["trace.json"])
    }
}
