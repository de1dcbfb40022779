import CZlib
import Foundation
import Lab
import Outbound
import Testing

@Suite("Inflater: gzip and deflate, piece by piece, never more than asked")
struct InflaterTests {
    static let text = Data(String(repeating: #"{"hero":{"name":"R2-D2"}}"#, count: 200).utf8)

    /// Everything `inflater` gives for `compressed` appended in pieces of `pieceSize`, asked
    /// for `max` bytes at a time.
    func inflate(_ compressed: Data, coding: Inflater.Coding, pieceSize: Int, max: Int) throws -> (Data, largest: Int) {
        let inflater = Inflater(coding)
        var output = Data()
        var largest = 0
        for start in stride(from: 0, to: compressed.count, by: pieceSize) {
            inflater.append(compressed[start..<min(start + pieceSize, compressed.count)])
            while let piece = try inflater.inflate(max: max) {
                largest = Swift.max(largest, piece.count)
                output.append(contentsOf: piece)
            }
        }
        try inflater.finish()
        return (output, largest)
    }

    @Test("the same bytes come out whole or from pieces of one byte, and no call gives more than it was asked",
          arguments: [(Deflater.Format.gzip, Inflater.Coding.gzip), (.zlib, .deflate), (.raw, .deflate)])
    func piecesDoNotMatter(format: Deflater.Format, coding: Inflater.Coding) throws {
        let compressed = Deflater.compress(Self.text, format: format)
        #expect(try inflate(compressed, coding: coding, pieceSize: compressed.count, max: 64 << 10).0 == Self.text)
        let (bytes, largest) = try inflate(compressed, coding: coding, pieceSize: 1, max: 100)
        #expect(bytes == Self.text)
        #expect(largest == 100)
    }

    /// fuzz/corpus/FuzzHTTPAnswer/deflate-bad-check-past-limit: whole, the bytes and the bad
    /// check came in one call, and the error hid the bytes a reader at its limit stops on.
    @Test("bytes before an invalid check come out first, whole or in pieces; the error follows")
    func bytesBeforeAnErrorComeFirst() throws {
        var compressed = Deflater.compress(Self.text, format: .zlib)
        compressed[compressed.count - 1] ^= 0xFF
        let failure = Inflater.Failure(description: "the deflate-compressed answer is not valid: incorrect data check")
        for pieceSize in [compressed.count, 5] {
            let inflater = Inflater(.deflate)
            var output = Data()
            var caught: Inflater.Failure?
            for start in stride(from: 0, to: compressed.count, by: pieceSize) {
                inflater.append(compressed[start..<min(start + pieceSize, compressed.count)])
                do {
                    while let piece = try inflater.inflate(max: 64 << 10) { output.append(contentsOf: piece) }
                } catch {
                    caught = error
                    break
                }
            }
            #expect(output == Self.text, "pieces of \(pieceSize)")
            #expect(caught == failure, "pieces of \(pieceSize)")
        }
    }

    @Test("gzip members one after another are one body; anything after a deflate stream is refused")
    func membersFollowOneAnother() throws {
        let twice = Deflater.compress(Self.text, format: .gzip) + Deflater.compress(Self.text, format: .gzip)
        #expect(try inflate(twice, coding: .gzip, pieceSize: 7, max: 1000).0 == Self.text + Self.text)
        let deflateTwice = Deflater.compress(Self.text, format: .zlib) + Deflater.compress(Self.text, format: .zlib)
        #expect(throws: Inflater.Failure(description: "the deflate-compressed answer goes on after its end")) {
            _ = try inflate(deflateTwice, coding: .deflate, pieceSize: deflateTwice.count, max: 64 << 10)
        }
    }

    @Test("Content-Encoding values: gzip, x-gzip and deflate are inflated; others, and several codings, are not")
    func codingsNamed() {
        #expect(Inflater.Coding(contentEncoding: "gzip") == .gzip)
        #expect(Inflater.Coding(contentEncoding: "X-Gzip") == .gzip)
        #expect(Inflater.Coding(contentEncoding: "identity, deflate") == .deflate)
        #expect(Inflater.Coding(contentEncoding: "br") == nil)
        #expect(Inflater.Coding(contentEncoding: "gzip, br") == nil)
        #expect(Inflater.Coding(contentEncoding: "deflate, gzip") == nil)
    }

    @Test("an empty body is an empty answer; a body cut short is refused at its end")
    func emptyAndCutShort() throws {
        #expect(try inflate(Data(), coding: .gzip, pieceSize: 1, max: 10).0 == Data())
        let compressed = Deflater.compress(Self.text, format: .gzip)
        #expect(throws: Inflater.Failure(description: "the gzip-compressed answer stops before its end")) {
            _ = try inflate(compressed.dropLast(1), coding: .gzip, pieceSize: 64, max: 1000)
        }
    }
}
