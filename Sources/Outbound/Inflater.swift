import CZlib
import Vocabulary

/// Inflates a body sent with `Content-Encoding: gzip` or `deflate` (RFC 9110 §8.4.1) piece
/// by piece, handing out no more than its reader asks for at each call: a reader that stops
/// at a limit stops the inflation there, so a small answer that inflates to gigabytes (a
/// decompression bomb) costs no more than the limit.
///
/// ```swift
/// let inflater = try Inflater(.gzip)
/// inflater.append(compressedPiece)
/// while let inflated = try inflater.inflate(max: 64 << 10) { body.append(contentsOf: inflated) }
/// try inflater.finish()   // at the end of the compressed bytes: fails when they stop short
/// ```
///
/// `deflate` is the zlib format (RFC 1950) as the RFC says, or raw deflate (RFC 1951) as
/// some servers send it, told apart by the first two bytes. A gzip body may hold several
/// members one after another (RFC 1952 §2.2); a deflate body ends with its stream.
package final class Inflater {
    package enum Coding: String, Sendable, Hashable {
        case gzip
        case deflate

        /// The coding a `Content-Encoding` value names when it is one this type inflates
        /// (`x-gzip` is gzip, RFC 9110 §8.4.1.3); nil for anything else, several codings
        /// included.
        package init?(contentEncoding: String) {
            let codings = HTTPSyntax.listElements(contentEncoding).map { $0.lowercased() }.filter { $0 != "identity" }
            guard codings.count == 1 else { return nil }
            switch codings[0] {
            case "gzip", "x-gzip": self = .gzip
            case "deflate": self = .deflate
            default: return nil
            }
        }
    }

    /// The compressed bytes are not valid, or stop before their end.
    package struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        package let description: String

        package init(description: String) {
            self.description = description
        }
    }

    package let coding: Coding
    /// zlib's state refers to the stream by its address: it must not move.
    private let stream: UnsafeMutablePointer<z_stream>
    private var started = false
    /// An invalid stream found after some bytes came out: thrown by the next call.
    private var pendingFailure: Failure?
    /// The compressed bytes appended; zlib has taken those before `taken`.
    private var input: [UInt8] = []
    private var taken = 0
    /// Whether zlib reached the end of the (last) compressed stream.
    private var ended = false

    package init(_ coding: Coding) {
        self.coding = coding
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
    }

    deinit {
        if started { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Adds compressed bytes, to be inflated by the next calls of ``inflate(max:)``.
    package func append(_ bytes: some Sequence<UInt8>) {
        if taken > 0 {
            input.removeFirst(taken)
            taken = 0
        }
        input.append(contentsOf: bytes)
    }

    /// At most `max` bytes inflated from what was appended; nil when it needs more input
    /// (or the stream ended and nothing follows).
    /// - Throws: ``Failure`` when the bytes are not valid.
    package func inflate(max: Int) throws(Failure) -> [UInt8]? {
        precondition(max > 0, "inflate(max:) needs room for at least one byte")
        if let failure = pendingFailure {
            pendingFailure = nil
            throw failure
        }
        var output = [UInt8](repeating: 0, count: max)
        var produced = 0
        while produced == 0, taken < input.count {
            if ended {
                // Another gzip member may follow; nothing may follow a deflate stream.
                guard coding == .gzip else { throw Failure(description: "the deflate-compressed answer goes on after its end") }
                guard inflateReset(stream) == Z_OK else { throw Failure(description: "zlib could not start the next gzip member") }
                ended = false
            }
            if !started {
                guard let windowBits = windowBits() else { return nil }
                guard chainlab_inflate_init(stream, windowBits) == Z_OK else { throw Failure(description: "zlib could not start inflating") }
                started = true
            }
            let taken = self.taken
            let (status, consumed, written) = input.withUnsafeMutableBufferPointer { source in
                output.withUnsafeMutableBufferPointer { target in
                    let available = UInt32(clamping: source.count - taken)
                    stream.pointee.next_in = source.baseAddress! + taken
                    stream.pointee.avail_in = available
                    stream.pointee.next_out = target.baseAddress! + produced
                    stream.pointee.avail_out = UInt32(clamping: target.count - produced)
                    let status = CZlib.inflate(stream, Z_NO_FLUSH)
                    let consumed = Int(available - stream.pointee.avail_in)
                    let written = target.count - produced - Int(stream.pointee.avail_out)
                    stream.pointee.next_in = nil
                    stream.pointee.next_out = nil
                    return (status, consumed, written)
                }
            }
            self.taken += consumed
            if self.taken == input.count {
                input.removeAll(keepingCapacity: true)
                self.taken = 0
            }
            produced += written
            switch status {
            case Z_STREAM_END:
                ended = true
            case Z_OK:
                break
            case Z_BUF_ERROR:
                // No progress possible: the input ends inside a block.
                guard consumed > 0 || written > 0 else { return produced == 0 ? nil : Array(output[..<produced]) }
            default:
                let reason = stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(status)"
                let failure = Failure(description: "the \(coding.rawValue)-compressed answer is not valid: \(reason)")
                // What was inflated before the invalid bytes comes out first, as it would had
                // those bytes arrived later: a reader at its limit stops there either way.
                guard produced == 0 else {
                    pendingFailure = failure
                    return Array(output[..<produced])
                }
                throw failure
            }
        }
        return produced == 0 ? nil : Array(output[..<produced])
    }

    /// Says the compressed bytes have all been appended.
    /// - Throws: ``Failure`` when they stop before the end of their stream; a body with no
    ///   bytes at all is an empty one.
    package func finish() throws(Failure) {
        guard started || taken < input.count else { return }
        guard ended, taken == input.count else { throw Failure(description: "the \(coding.rawValue)-compressed answer stops before its end") }
    }

    /// gzip: zlib's gzip decoding (15 + 16). deflate: a zlib header when the first two
    /// bytes make one (RFC 1950 §2.2: method 8 and a check that divides by 31), else raw
    /// deflate. Nil while fewer than two bytes have come.
    private func windowBits() -> Int32? {
        switch coding {
        case .gzip:
            return 15 + 16
        case .deflate:
            guard input.count - taken >= 2 else { return nil }
            let (first, second) = (input[taken], input[taken + 1])
            let isZlib = first & 0x0F == 8 && (Int(first) << 8 | Int(second)) % 31 == 0
            return isZlib ? 15 : -15
        }
    }
}
