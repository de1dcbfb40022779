import Vocabulary

/// Decodes a body sent with chunked transfer coding (RFC 9112 §7.1) as its bytes arrive:
/// chunk sizes in hex, extensions ignored, trailer fields read and dropped. The request
/// parser uses it for chunked uploads and ``HTTPClientConnection`` for chunked answers.
///
/// ```swift
/// var decoder = ChunkedDecoder()
/// var body: [UInt8] = []
/// let used = try decoder.decode(Array("5\r\nhello\r\n0\r\n\r\n".utf8)[...], into: &body)   // body: "hello"
/// ```
struct ChunkedDecoder: Sendable {
    /// A size or trailer line longer than this is refused: nothing legitimate needs it, and
    /// a line is buffered whole.
    static let maxLineBytes = 4096

    private enum State: Sendable {
        case size
        case data(remaining: Int)
        case dataEnd
        case trailers
        case done
    }

    private var state = State.size
    private var line: [UInt8] = []
    /// The most body bytes the chunks may announce in all. A chunk that would pass it is
    /// refused at its size line, before its data, so where the body's bytes happen to be
    /// split never changes which error a body gets.
    private let limit: Int
    private var announced = 0

    init(limit: Int = .max) {
        self.limit = limit
    }

    /// Whether the last chunk and the trailer section have been read.
    var isDone: Bool {
        if case .done = state { true } else { false }
    }

    /// Decodes what it can of `bytes`, appending the body's bytes to `body`; returns how many
    /// of `bytes` it used (fewer than all only once the body has ended, so what follows is
    /// the next message).
    mutating func decode(_ bytes: ArraySlice<UInt8>, into body: inout [UInt8]) throws(ChunkedCodingError) -> Int {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            switch state {
            case .done:
                return index - bytes.startIndex
            case .data(let remaining):
                let end = min(bytes.endIndex, index + remaining)
                body.append(contentsOf: bytes[index..<end])
                state = remaining == end - index ? .dataEnd : .data(remaining: remaining - (end - index))
                index = end
            case .size, .dataEnd, .trailers:
                let byte = bytes[index]
                index += 1
                guard byte == HTTPSyntax.lf else {
                    line.append(byte)
                    if line.count > Self.maxLineBytes { throw ChunkedCodingError("a chunk line is longer than \(Self.maxLineBytes) bytes") }
                    continue
                }
                guard line.last == HTTPSyntax.cr else { throw ChunkedCodingError("a chunk line ends with a bare LF; lines must end with CRLF") }
                line.removeLast()
                try endLine()
                line.removeAll(keepingCapacity: true)
            }
        }
        return index - bytes.startIndex
    }

    private mutating func endLine() throws(ChunkedCodingError) {
        switch state {
        case .size:
            let digits = line.prefix { $0 != UInt8(ascii: ";") && $0 != HTTPSyntax.space && $0 != UInt8(ascii: "\t") }
            guard !digits.isEmpty, digits.count <= 15, let size = Int(String(decoding: digits, as: UTF8.self), radix: 16), size >= 0,
                digits.allSatisfy({ $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "-") })
            else {
                throw ChunkedCodingError("chunk size \"\(HTTPSyntax.visible(line[...]))\" is not a hexadecimal number")
            }
            guard size <= limit - announced else { throw .tooLarge(limit: limit) }
            announced += size
            state = size == 0 ? .trailers : .data(remaining: size)
        case .dataEnd:
            guard line.isEmpty else { throw ChunkedCodingError("a chunk's data is longer than its size") }
            state = .size
        case .trailers:
            if line.isEmpty { state = .done }
        case .data, .done:
            break
        }
    }
}

/// A chunked body that breaks RFC 9112 §7.1.
public struct ChunkedCodingError: Error, Sendable, Hashable, CustomStringConvertible {
    public let description: String
    /// Whether the chunks announced more bytes than the decoder's limit.
    public let isTooLarge: Bool

    init(_ description: String, isTooLarge: Bool = false) {
        self.description = description
        self.isTooLarge = isTooLarge
    }

    static func tooLarge(limit: Int) -> ChunkedCodingError {
        ChunkedCodingError("the chunks announce more than \(limit) bytes", isTooLarge: true)
    }
}
