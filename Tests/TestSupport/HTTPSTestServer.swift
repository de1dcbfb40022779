#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
public import Foundation

/// A development server over HTTPS, as people run one: Python's `http.server` behind `ssl`,
/// with a certificate for `localhost` and `127.0.0.1` that a CA made for the test signed
/// (`/usr/bin/openssl`). `handler` is Python defining `class Handler`, a
/// `BaseHTTPRequestHandler` (`http.server`, `os`, `sys` and `zlib` are imported; the
/// server's folder is `sys.argv[3]`).
public final class HTTPSTestServer: Sendable {
    public struct StartError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Where the certificates and the script live; a script may leave files there.
    public let folder: URL
    public let port: UInt16
    private let process: Process

    /// The CA that signed the server's certificate, as PEM.
    public var caFile: String { folder.appendingPathComponent("ca.pem").path }

    /// What runs `Handler`: a threading server on an ephemeral port of 127.0.0.1, its socket
    /// wrapped in TLS, the port printed first.
    static let serving = #"""
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[1], sys.argv[2])
        server.socket = context.wrap_socket(server.socket, server_side=True)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """#

    public init(handler: String) async throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("chainlab-tls-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.path
        try Data("subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n".utf8).write(to: folder.appendingPathComponent("extensions.cnf"))
        for arguments in [
            ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(path)/ca.key", "-out", "\(path)/ca.pem", "-days", "2",
             "-subj", "/CN=ChainLab Test CA", "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign"],
            ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(path)/server.key", "-out", "\(path)/server.csr", "-subj", "/CN=localhost"],
            ["x509", "-req", "-in", "\(path)/server.csr", "-CA", "\(path)/ca.pem", "-CAkey", "\(path)/ca.key", "-CAcreateserial",
             "-out", "\(path)/server.pem", "-days", "2", "-extfile", "\(path)/extensions.cnf"],
        ] {
            let openssl = Process()
            openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            openssl.arguments = arguments
            let pipes = try startPiped(openssl)
            let failed = await onOwnThread { () -> String? in
                let errors = pipes.stderr.fileHandleForReading.readDataToEndOfFile()
                _ = pipes.stdout.fileHandleForReading.readDataToEndOfFile()
                openssl.waitUntilExit()
                return openssl.terminationStatus == 0 ? nil : String(decoding: errors, as: UTF8.self)
            }
            if let failed { throw StartError(description: "openssl \(arguments[0]) failed: \(failed)") }
        }
        let script = "import http.server, os, ssl, sys, zlib\n" + handler + "\n" + Self.serving + "\n"
        try Data(script.utf8).write(to: folder.appendingPathComponent("server.py"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["\(path)/server.py", "\(path)/server.pem", "\(path)/server.key", path]
        let pipes = try startPiped(process)
        self.process = process
        let line = await onOwnThread { () -> String in
            var data = Data()
            while !data.contains(UInt8(ascii: "\n")) {
                let chunk = pipes.stdout.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                data.append(chunk)
            }
            return String(decoding: data, as: UTF8.self)
        }
        guard let port = UInt16(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            kill(process.processIdentifier, SIGKILL)
            throw StartError(description: "the HTTPS server announced no port: \(line.debugDescription)")
        }
        self.port = port
    }

    deinit {
        // SIGKILL: the child inherits the spawning thread's signal mask, where SIGTERM may be
        // blocked, and Python's server would then outlive the test.
        kill(process.processIdentifier, SIGKILL)
        try? FileManager.default.removeItem(at: folder)
    }
}
