#if canImport(FoundationNetworking)
import ChainKit
import Foundation
import FoundationNetworking
@testable import Lab
@testable import Outbound
@testable import Scheduling
import Testing
import TestSupport

/// What a server at an `https://` URL sends compressed goes through libcurl under ChainLab's
/// control (`CurlHTTPSProtocol`): once the reader stops at `--max-body`, the transfer ends at
/// libcurl's next call back, so the server sees the connection closed while the session is
/// still running. (FoundationNetworking's own handle went on reading and inflating until the
/// server stopped.)
@Suite("Compressed answers from HTTPS servers", .serialized, .timeLimit(.minutes(3)))
struct CompressedHTTPSAnswerTests {
    /// Answers every POST with an endless gzip stream of JSON, compressed as it is sent; when
    /// a write fails (the client closed the connection) it leaves a file `closed` in its folder.
    static let endless = #"""
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Encoding", "gzip")
                self.end_headers()
                deflater = zlib.compressobj(9, zlib.DEFLATED, 31)
                piece = b" " * 65536
                try:
                    self.wfile.write(deflater.compress(b'{"data":{"hero":{"id":"2001","name":"'))
                    while True:
                        self.wfile.write(deflater.compress(piece) + deflater.flush(zlib.Z_SYNC_FLUSH))
                except OSError:
                    open(os.path.join(sys.argv[3], "closed"), "w").write("closed")
            def log_message(self, *arguments):
                pass
        """#

    @Test("libcurl under ChainLab's control makes every https:// exchange, under the system's trust too")
    func everyHTTPSExchange() {
        #expect(HTTPSTrust.current == .system)
        #expect(CurlHTTPSProtocol.canInit(with: URLRequest(url: URL(string: "https://api.example.com/graphql")!)))
        #expect(!CurlHTTPSProtocol.canInit(with: URLRequest(url: URL(string: "http://127.0.0.1:4000/graphql")!)))
    }

    @Test("an endless gzip answer to an operation fails it at --max-body, and the server sees the connection closed at once")
    func anEndlessGzipAnswerIsCutAndClosed() async throws {
        let server = try await HTTPSTestServer(handler: Self.endless)
        // The trust is the process's; the server's CA is trusted besides the system's.
        HTTPSTrust.install(.certificates(pem: HTTPSTrust.systemCertificates() + (try Data(contentsOf: URL(fileURLWithPath: server.caFile)))))
        defer { HTTPSTrust.install(.system) }
        let url = URL(string: "https://localhost:\(server.port)/graphql")!
        let session = try await LabSession.connect(
            scenario: try #require(Catalog.scenario(named: "basics")),
            remote: RemoteOptions(endpoint: url, token: "t", maxBodyBytes: 64 << 10, timeout: 60))
        let result = await session.runHeadless()
        // The reader stops at --max-body; on a loaded machine the inflated answer may first
        // pile up past what may wait unread (64 MiB), which stops it too.
        let failure = try #require(result.networkFailures.first)
        #expect(failure == RemoteFailure(url: url.absoluteString, cause: .tooLarge(limit: 64 << 10, announced: nil))
            || failure.description.hasSuffix("arrived without being read; the transfer was stopped to bound memory"), "\(failure)")
        // The session is still open: only the transfer's own end can close the connection.
        let closed = server.folder.appendingPathComponent("closed")
        var waited = 0
        while !FileManager.default.fileExists(atPath: closed.path), waited < 300 {
            try await Task.sleep(for: .milliseconds(100))
            waited += 1
        }
        #expect(FileManager.default.fileExists(atPath: closed.path), "the server is still sending 30 s after the exchange failed")
        await session.shutDown()
    }

    /// FoundationNetworking forgets a task soon after it stops and traps on any later word
    /// from its protocol, so a body piece arriving while the task is cancelled must not reach
    /// it. Each round drops the body after its first piece, which cancels the task while
    /// libcurl is still delivering. On a loaded machine the inflated answer may pile up past
    /// what may wait unread before the first read, which cancels the task too.
    @Test("a task cancelled while its body streams in hears nothing more from libcurl, 40 times over")
    func cancelledWhileStreaming() async throws {
        let server = try await HTTPSTestServer(handler: Self.endless)
        HTTPSTrust.install(.certificates(pem: try Data(contentsOf: URL(fileURLWithPath: server.caFile))))
        defer { HTTPSTrust.install(.system) }
        let configuration = URLSessionConfiguration.ephemeral
        HTTPSTrust.prepare(configuration)
        let reader = URLSessionChunkReader(configuration: configuration)
        var request = URLRequest(url: URL(string: "https://localhost:\(server.port)/graphql")!)
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"query":"{ hero { id name } }"}"#.utf8)
        var ends: [String] = []
        for _ in 0..<40 {
            let (head, chunks) = try await reader.start(request)
            #expect(head.statusCode == 200)
            let pieces = chunks.makeAsyncIterator()
            do {
                let first = try await pieces.next()
                ends.append(first.map { $0.isEmpty ? "empty piece" : "piece" } ?? "no piece")
            } catch let error as URLSessionChunkReader.ReadAheadExceeded {
                ends.append(error == .init(limit: 64 << 20) ? "cut at 64 MiB unread" : "\(error)")
            }
        }
        #expect(ends.count == 40)
        #expect(ends.allSatisfy { $0 == "piece" || $0 == "cut at 64 MiB unread" }, "\(ends)")
    }
}
#endif
