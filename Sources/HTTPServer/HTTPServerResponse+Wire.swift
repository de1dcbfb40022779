import Foundation
import Vocabulary

extension HTTPServerResponse {
    /// Why this response cannot be sent as given, or nil when it can.
    var handlerMistake: String? {
        guard (200...599).contains(status) else {
            return "the handler answered with status \(status); a final status is in 200...599"
        }
        for header in headers {
            if !HTTPSyntax.isToken(header.name.utf8) {
                return "the handler's header name \"\(HTTPSyntax.visible(header.name.utf8))\" is not a token"
            }
            if let bad = header.value.utf8.first(where: { $0 == HTTPSyntax.cr || $0 == HTTPSyntax.lf || $0 == 0 }) {
                return "the handler's header \"\(header.name)\" has \(HTTPSyntax.describe(bad)) in its value"
            }
        }
        return nil
    }

    /// Whether the handler asked for the connection to close after this response.
    var asksToClose: Bool {
        headers.contains { header in
            header.hasName("Connection")
                && header.value.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "close" }
        }
    }

    /// The bytes on the wire. The server writes the framing headers itself; `includeBody`
    /// is false for HEAD requests, which get the Content-Length the body would have.
    func wireBytes(includeBody: Bool, closing: Bool) -> [UInt8] {
        var bytes = head(framing: isBodyless ? nil : "Content-Length: \(body.count)", closing: closing)
        if includeBody && !isBodyless { bytes.append(contentsOf: body) }
        return bytes
    }

    /// The head of a streamed response: `Transfer-Encoding: chunked` when `chunked`, no
    /// framing header otherwise (the body then ends with the connection).
    func streamedHead(chunked: Bool, closing: Bool) -> [UInt8] {
        head(framing: chunked && !isBodyless ? "Transfer-Encoding: chunked" : nil, closing: closing)
    }

    /// 204 and 304 never carry a body (RFC 9110 §8.6, §15.4.5).
    var isBodyless: Bool { status == 204 || status == 304 }

    private func head(framing: String?, closing: Bool) -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(ReasonPhrase.of(status))\r\n"
        for header in headers
        where !header.hasName("Content-Length") && !header.hasName("Transfer-Encoding") && !header.hasName("Connection") {
            head += "\(header.name): \(header.value)\r\n"
        }
        if let framing { head += framing + "\r\n" }
        if closing { head += "Connection: close\r\n" }
        head += "\r\n"
        return Array(head.utf8)
    }

    /// `bytes` as one chunk of a chunked body: size in hex, CRLF, the bytes, CRLF.
    static func chunk(_ bytes: Data) -> [UInt8] {
        Array(String(bytes.count, radix: 16).utf8) + [HTTPSyntax.cr, HTTPSyntax.lf] + Array(bytes) + [HTTPSyntax.cr, HTTPSyntax.lf]
    }

    /// The last chunk of a chunked body, without trailers.
    static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)

    /// A plain-text answer to a request the server refuses; it always closes.
    static func refusal(status: Int, reason: String) -> HTTPServerResponse {
        .text(reason + "\n", status: status)
    }

}
