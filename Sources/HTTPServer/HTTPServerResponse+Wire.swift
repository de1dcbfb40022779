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
        let bodyless = status == 204 || status == 304
        var head = "HTTP/1.1 \(status) \(ReasonPhrase.of(status))\r\n"
        for header in headers
        where !header.hasName("Content-Length") && !header.hasName("Transfer-Encoding") && !header.hasName("Connection") {
            head += "\(header.name): \(header.value)\r\n"
        }
        if !bodyless { head += "Content-Length: \(body.count)\r\n" }
        if closing { head += "Connection: close\r\n" }
        head += "\r\n"
        var bytes = Array(head.utf8)
        if includeBody && !bodyless { bytes.append(contentsOf: body) }
        return bytes
    }

    /// A plain-text answer to a request the server refuses; it always closes.
    static func refusal(status: Int, reason: String) -> HTTPServerResponse {
        .text(reason + "\n", status: status)
    }

}
