public import Wire
public import Foundation
import Synchronization

/// The request or response a hop saw, frozen.
///
/// A final class with only constant fields, so it is `Sendable` and one instance can be shared
/// by every event that saw the same message: an event holds one reference instead of copies
/// of the method, URL, headers and body.
public final class HopSnapshot: Sendable, Hashable {
    /// A snapshot with nothing in it, shared by every event that carries no message.
    public static let empty = HopSnapshot()

    public let method: String?
    /// The absolute URL as text.
    public let url: String?
    public let headers: HTTPFields?
    public var status: Int? {
        storedStatus != HopSnapshot.noStatus ? Int(storedStatus) : rare?.status
    }
    public var error: String? { rare?.error }
    public var body: BodyPreview? { rare?.body }

    // Most snapshots are request or response heads: the error, the body and a status too
    // large for 32 bits live behind one optional reference, so a head costs 24 fewer bytes
    // of the timeline's memory per snapshot (about 20 per event).
    private let storedStatus: Int32
    /// Set by a maker that already keeps one snapshot for equal messages (the lab's snapshot
    /// cache): a store appends such a snapshot as it is, without looking for an equal one among
    /// those it holds. In the padding after the status, so a snapshot is no larger for it.
    private let sharedByMaker = Atomic<Bool>(false)
    private let rare: Rare?

    private static let noStatus = Int32.min

    private final class Rare: Sendable {
        let status: Int?
        let error: String?
        let body: BodyPreview?

        init(status: Int?, error: String?, body: BodyPreview?) {
            self.status = status
            self.error = error
            self.body = body
        }
    }

    public init(
        method: String? = nil, url: String? = nil, headers: HTTPFields? = nil, status: Int? = nil,
        error: String? = nil, body: BodyPreview? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        let compact = status.flatMap { Int32(exactly: $0) }.flatMap { $0 == HopSnapshot.noStatus ? nil : $0 }
        storedStatus = compact ?? HopSnapshot.noStatus
        let rareStatus = compact == nil ? status : nil
        rare = rareStatus == nil && error == nil && body == nil ? nil : Rare(status: rareStatus, error: error, body: body)
    }

    /// What an HTTP interceptor or the GraphQL transport sees going down.
    public convenience init(_ request: NetworkRequest, bodyLimit: Int = BodyPreview.defaultLimit) {
        self.init(
            method: request.method.rawValue, url: request.url.absoluteString, headers: request.headerFields,
            body: request.body.map { BodyPreview($0, limit: bodyLimit) })
    }

    /// What a middleware or the middleware transport sees going down; the body is optional
    /// because middleware bodies are streams that may be read only once.
    public convenience init(_ request: HTTPRequest, baseURL: URL, body: Data? = nil, bodyLimit: Int = BodyPreview.defaultLimit) {
        self.init(
            method: request.method.rawValue,
            url: request.url(relativeTo: baseURL)?.absoluteString ?? request.path ?? "",
            headers: request.headerFields,
            body: body.map { BodyPreview($0, limit: bodyLimit) })
    }

    /// A response head and, when already buffered, its body.
    public convenience init(_ response: HTTPResponse, body: Data? = nil, bodyLimit: Int = BodyPreview.defaultLimit) {
        self.init(
            headers: response.headerFields, status: response.status.code,
            body: body.map { BodyPreview($0, limit: bodyLimit) })
    }

    public static func == (lhs: HopSnapshot, rhs: HopSnapshot) -> Bool {
        lhs === rhs
            || (lhs.method == rhs.method && lhs.url == rhs.url && lhs.headers == rhs.headers
                && lhs.status == rhs.status && lhs.error == rhs.error && lhs.body == rhs.body)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(method)
        hasher.combine(url)
        hasher.combine(headers)
        hasher.combine(status)
        hasher.combine(error)
        hasher.combine(body)
    }

    /// Whether the maker keeps this one snapshot for equal messages (``markSharedByMaker()``).
    package var isSharedByMaker: Bool { sharedByMaker.load(ordering: .relaxed) }

    /// Tells stores that whoever made this snapshot hands it out for every message equal to
    /// the one it shows, so they need not look for an equal one. Called once, before the
    /// snapshot is handed out (the lock it is handed out under orders the two).
    package func markSharedByMaker() {
        sharedByMaker.store(true, ordering: .relaxed)
    }

    /// The status when the snapshot holds nothing else (a result seen only as its status, or
    /// ``empty``), for the store to keep one such snapshot per status.
    var bareStatus: Int32? {
        method == nil && url == nil && headers == nil && rare == nil ? storedStatus : nil
    }

    /// Whether `other` is a head equal to this one: the same method, URL, headers and status,
    /// and neither has an error or a body. Fields compare cheaply when the two share them (the
    /// same strings, the same header storage); bodies are never compared, so a deferred body
    /// is never produced here.
    func isSameHead(as other: HopSnapshot) -> Bool {
        rare == nil && other.rare == nil && storedStatus == other.storedStatus
            && method == other.method && headers?.count == other.headers?.count
            && url == other.url && headers == other.headers
    }
}

/// A body as the timeline keeps it: a bounded start for views (``text``), and the whole
/// body for exports (``wholeText``).
///
/// ```swift
/// let preview = BodyPreview(Data(repeating: 65, count: 10_000))
/// preview.text.utf8.count      // 4096
/// preview.byteCount            // 10000
/// preview.isTruncated          // true
/// preview.wholeText.utf8.count // 10000
/// ```
///
/// The whole body is the `Data` the preview was made from, kept by reference (no copy) and
/// decoded only when an export reads it. Bodies reach the timeline already bounded by the
/// reads that produced them (`--max-body` for a real server's answers).
///
/// A preview can also be *deferred* (``init(deferred:limit:)``): the body is produced the
/// first time anything reads the preview, then kept and the producer dropped. The
/// instrumentation records GraphQL results this way, so a free run never encodes a result
/// nobody looks at.
public struct BodyPreview: Sendable, Hashable {
    /// Bytes kept when no limit is given: 4 KiB.
    public static let defaultLimit = 4096

    private let storage: Storage

    /// The first `limit` bytes of `data`, cut back to a whole UTF-8 character.
    public init(_ data: Data, limit: Int = BodyPreview.defaultLimit) {
        storage = .ready(Contents(data, limit: limit))
    }

    /// A preview as decoded from an export.
    public init(text: String, byteCount: Int, isTruncated: Bool) {
        storage = .ready(Contents(text: text, byteCount: byteCount, isTruncated: isTruncated))
    }

    /// A preview of the body `produce` returns, called once, when the preview is first read.
    public init(deferred produce: @escaping @Sendable () -> Data, limit: Int = BodyPreview.defaultLimit) {
        storage = .deferred(DeferredContents(produce: produce, limit: limit))
    }

    /// The kept bytes as UTF-8 text (invalid sequences become U+FFFD).
    public var text: String { contents.text }
    /// The size of the whole body in bytes.
    public var byteCount: Int { contents.byteCount }
    /// Whether `text` is only the start of the body.
    public var isTruncated: Bool { contents.isTruncated }

    /// The whole body as UTF-8 text, for exports; ``text`` when that is all of it (or all
    /// that is known, for a preview read back from an export).
    public var wholeText: String {
        let contents = contents
        return contents.whole.map(Contents.decode) ?? contents.text
    }

    /// Whether ``wholeText`` is less than the body: only for a preview read back from an
    /// export that carried a cut body.
    public var isWholeTruncated: Bool {
        let contents = contents
        return contents.whole == nil && contents.isTruncated
    }

    public static func == (lhs: BodyPreview, rhs: BodyPreview) -> Bool {
        lhs.contents == rhs.contents
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(contents)
    }

    private var contents: Contents {
        switch storage {
        case .ready(let contents): contents
        case .deferred(let deferred): deferred.contents
        }
    }

    private enum Storage: Sendable {
        case ready(Contents)
        case deferred(DeferredContents)
    }

    fileprivate struct Contents: Sendable, Hashable {
        var text: String
        var byteCount: Int
        var isTruncated: Bool
        /// The whole body when `text` is only its start; nil when `text` is all of it.
        var whole: Data?

        init(text: String, byteCount: Int, isTruncated: Bool) {
            self.text = text
            self.byteCount = byteCount
            self.isTruncated = isTruncated
        }

        init(_ data: Data, limit: Int) {
            byteCount = data.count
            guard data.count > limit else {
                text = Contents.decode(data)
                isTruncated = false
                return
            }
            var end = data.startIndex + max(limit, 0)
            // Step back over continuation bytes so the cut never splits a character.
            while end > data.startIndex, data[end] & 0xC0 == 0x80 { end -= 1 }
            text = Contents.decode(data[data.startIndex..<end])
            isTruncated = true
            whole = data
        }

        // The start, the size and the cut identify a body nearly always; equal values still
        // compare the whole bodies, so the hash need not read a megabyte.
        func hash(into hasher: inout Hasher) {
            hasher.combine(text)
            hasher.combine(byteCount)
            hasher.combine(isTruncated)
        }

        /// UTF-8 text from contiguous bytes, invalid sequences replaced: `String(decoding:)` on
        /// a buffer takes the fast validating path, on `Data` itself the slow generic one.
        static func decode(_ data: Data) -> String {
            data.withUnsafeBytes { String(decoding: $0.bindMemory(to: UInt8.self), as: UTF8.self) }
        }
    }
}

/// A body produced on first read and kept from then on; the producer (and whatever it holds)
/// is released once it has run.
private final class DeferredContents: Sendable {
    private enum State {
        case pending(@Sendable () -> Data)
        case ready(BodyPreview.Contents)
    }

    private let limit: Int
    private let state: Mutex<State>

    init(produce: @escaping @Sendable () -> Data, limit: Int) {
        self.limit = limit
        state = Mutex(.pending(produce))
    }

    var contents: BodyPreview.Contents {
        state.withLock { state in
            switch state {
            case .ready(let contents):
                return contents
            case .pending(let produce):
                let contents = BodyPreview.Contents(produce(), limit: limit)
                state = .ready(contents)
                return contents
            }
        }
    }
}
