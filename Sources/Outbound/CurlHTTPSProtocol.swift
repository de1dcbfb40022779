#if canImport(CCurl)
import CCurl
import Foundation
import FoundationNetworking
import Synchronization

/// Every `https://` exchange of the sessions ``HTTPSTrust/prepare(_:)`` configured, made
/// with libcurl, the library FoundationNetworking itself runs on, under the process's trust
/// (``HTTPSTrust``).
///
/// FoundationNetworking gives no say over certificate checks on Linux (measured with Swift
/// 6.3.1 against a server whose certificate a private CA signed): it sends the delegate no
/// server-trust challenge, it reads `URLSessionCertificateAuthorityInfoFile` on Android
/// only (the Linux library does not contain the name), and the libcurl it sets the system
/// bundle on ignores `SSL_CERT_FILE`, `CURL_CA_BUNDLE` and `SSL_CERT_DIR`. Nor does it stop
/// its handle when a task is cancelled: an endless or bomb-sized compressed answer goes on
/// inflating. This protocol sends the request with libcurl's `CURLOPT_CAINFO_BLOB`, or
/// without verification, or with the system's bundle, and hands the answer to the task as
/// URLSession does: the head once it is in, the body as it arrives, redirects not followed,
/// compressed bodies decoded, the timeout counted as silence; once the task stops, the
/// transfer ends at libcurl's next call back and tells the task nothing more.
final class CurlHTTPSProtocol: URLProtocol {
    /// The running exchange: FoundationNetworking may stop it from another thread.
    private let transfer = Mutex<Transfer?>(nil)

    /// The CA bundle libcurl verifies with by default; nil when it has none.
    static let defaultCAFile: String? = {
        guard let handle = curl_easy_init() else { return nil }
        defer { curl_easy_cleanup(handle) }
        return cl_default_ca_file(handle).map { String(cString: $0) }
    }()

    /// Every `https://` exchange, under any trust: the transfer stops at the first write after
    /// its reader stops, so a compressed answer is inflated no further than it was read
    /// (FoundationNetworking's own libcurl handle goes on inflating after a cancel).
    override class func canInit(with request: URLRequest) -> Bool {
        request.url?.scheme?.lowercased() == "https"
    }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        let started = Transfer(owner: self, request: request, trust: HTTPSTrust.current)
        transfer.withLock { $0 = started }
        Thread.detachNewThread { started.run() }
    }

    override func stopLoading() {
        transfer.withLock { $0 }?.cancel()
    }

    /// One exchange: the easy handle's settings, and what its callbacks collect.
    private final class Transfer: @unchecked Sendable {
        // `@unchecked`: every field but `stopped` is touched only by the thread running
        // `run` (libcurl calls back on it); `stopped` is behind its lock.
        private let owner: CurlHTTPSProtocol
        private let request: URLRequest
        private let trust: HTTPSTrust
        /// Set when the task stops loading. Every call to the task's client is made holding
        /// it: FoundationNetworking forgets a task soon after it stops, and a client call for
        /// a forgotten task traps, so none may start after `cancel` returns.
        private let stopped = Mutex<Bool>(false)
        private var status = 0
        private var fields: [(String, String)] = []
        private var headDelivered = false

        init(owner: CurlHTTPSProtocol, request: URLRequest, trust: HTTPSTrust) {
            self.owner = owner
            self.request = request
            self.trust = trust
        }

        func cancel() { stopped.withLock { $0 = true } }

        private var isStopped: Bool { stopped.withLock { $0 } }

        /// Hands `event` to the task's client unless the task has stopped; false when it has.
        @discardableResult
        private func tell(_ event: (any URLProtocolClient, URLProtocol) -> Void) -> Bool {
            stopped.withLock { stopped in
                guard !stopped else { return false }
                if let client = owner.client { event(client, owner) }
                return true
            }
        }

        func run() {
            guard let handle = curl_easy_init() else { return fail(URLError(.unknown)) }
            defer { curl_easy_cleanup(handle) }
            var errorText = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
            var headers: UnsafeMutablePointer<curl_slist>?
            defer { curl_slist_free_all(headers) }
            let url = request.url?.absoluteString ?? ""
            let body = request.httpBody ?? Data()
            let method = request.httpMethod ?? "GET"
            for (name, value) in request.allHTTPHeaderFields ?? [:] {
                headers = curl_slist_append(headers, "\(name): \(value)")
            }
            // URLSession sends neither: a POST waits for no 100 Continue.
            headers = curl_slist_append(headers, "Expect:")
            let timeout = request.timeoutInterval > 0 ? request.timeoutInterval : 60
            let code: CURLcode = errorText.withUnsafeMutableBufferPointer { errorBuffer in
                body.withUnsafeBytes { bodyBytes in
                    Self.withTrustBlob(trust) { blob in
                        var blob = blob
                        // libcurl's callbacks are C functions that get this transfer back only
                        // as the opaque pointer set with them; it lives until `run` returns,
                        // after `curl_easy_perform` has made its last call back.
                        let me = Unmanaged.passUnretained(self).toOpaque()
                        cl_set_pointer(handle, CURLOPT_URL, url)
                        cl_set_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer.baseAddress)
                        cl_set_long(handle, CURLOPT_PROTOCOLS, Int(CURLPROTO_HTTPS))
                        cl_set_long(handle, CURLOPT_NOSIGNAL, 1)
                        cl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0)
                        cl_set_pointer(handle, CURLOPT_ACCEPT_ENCODING, "")
                        cl_set_pointer(handle, CURLOPT_HTTPHEADER, headers)
                        cl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(timeout * 1000))
                        // The timeout is for silence, as URLSession's `timeoutIntervalForRequest`.
                        cl_set_long(handle, CURLOPT_LOW_SPEED_LIMIT, 1)
                        cl_set_long(handle, CURLOPT_LOW_SPEED_TIME, max(1, Int(timeout.rounded(.up))))
                        switch method {
                        case "GET": cl_set_long(handle, CURLOPT_HTTPGET, 1)
                        case "HEAD": cl_set_long(handle, CURLOPT_NOBODY, 1)
                        default: cl_set_pointer(handle, CURLOPT_CUSTOMREQUEST, method)
                        }
                        if !body.isEmpty || method == "POST" || method == "PUT" || method == "PATCH" {
                            cl_set_offset(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
                            cl_set_pointer(handle, CURLOPT_POSTFIELDS, bodyBytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1))
                        }
                        switch trust {
                        case .system: break
                        case .unverified:
                            cl_set_long(handle, CURLOPT_SSL_VERIFYPEER, 0)
                            cl_set_long(handle, CURLOPT_SSL_VERIFYHOST, 0)
                        case .certificates:
                            cl_set_pointer(handle, CURLOPT_CAINFO_BLOB, &blob)
                        }
                        cl_set_data_callback(handle, CURLOPT_HEADERFUNCTION) { bytes, size, count, context in
                            let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
                            return transfer.header(UnsafeRawBufferPointer(start: bytes, count: size * count)) ? size * count : 0
                        }
                        cl_set_pointer(handle, CURLOPT_HEADERDATA, me)
                        cl_set_data_callback(handle, CURLOPT_WRITEFUNCTION) { bytes, size, count, context in
                            let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
                            return transfer.body(UnsafeRawBufferPointer(start: bytes, count: size * count)) ? size * count : 0
                        }
                        cl_set_pointer(handle, CURLOPT_WRITEDATA, me)
                        cl_set_long(handle, CURLOPT_NOPROGRESS, 0)
                        cl_set_progress_callback(handle) { context, _, _, _, _ in
                            Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue().isStopped ? 1 : 0
                        }
                        cl_set_pointer(handle, CURLOPT_XFERINFODATA, me)
                        return curl_easy_perform(handle)
                    }
                }
            }
            guard !isStopped else { return }
            guard code == CURLE_OK else {
                let detail = String(decoding: errorText.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                return fail(Self.error(code, detail: detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail, url: request.url))
            }
            if !headDelivered, !deliverHead() { return }
            tell { $0.urlProtocolDidFinishLoading($1) }
        }

        private func fail(_ error: any Error) {
            tell { $0.urlProtocol($1, didFailWithError: error) }
        }

        /// One line of the head. A new status line starts a new head (after 1xx answers).
        private func header(_ line: UnsafeRawBufferPointer) -> Bool {
            let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if text.hasPrefix("HTTP/") {
                let parts = text.split(separator: " ", maxSplits: 2)
                status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
                fields = []
            } else if text.isEmpty {
                if status >= 200 { return deliverHead() }
            } else if let colon = text.firstIndex(of: ":") {
                let name = String(text[..<colon])
                let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                fields.append((name, value))
            }
            return !isStopped
        }

        private func deliverHead() -> Bool {
            guard !headDelivered else { return true }
            headDelivered = true
            var joined: [String: String] = [:]
            for (name, value) in fields {
                let key = joined.keys.first { $0.caseInsensitiveCompare(name) == .orderedSame } ?? name
                joined[key] = joined[key].map { $0 + ", " + value } ?? value
            }
            guard let url = request.url, let response = HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: joined) else {
                fail(URLError(.badServerResponse))
                return false
            }
            return tell { $0.urlProtocol($1, didReceive: response, cacheStoragePolicy: .notAllowed) }
        }

        private func body(_ bytes: UnsafeRawBufferPointer) -> Bool {
            if !headDelivered, !deliverHead() { return false }
            guard !bytes.isEmpty else { return !isStopped }
            let data = Data(bytes)
            return tell { $0.urlProtocol($1, didLoad: data) }
        }

        /// Runs `body` with the CA bundle as libcurl takes it in memory (copied by libcurl).
        private static func withTrustBlob<T>(_ trust: HTTPSTrust, _ body: (curl_blob) -> T) -> T {
            guard case .certificates(let pem) = trust else { return body(curl_blob(data: nil, len: 0, flags: 0)) }
            return pem.withUnsafeBytes { bytes in
                body(curl_blob(data: UnsafeMutableRawPointer(mutating: bytes.baseAddress), len: bytes.count, flags: UInt32(CURL_BLOB_COPY)))
            }
        }

        /// libcurl's failure as the `URLError` URLSession gives for it, with libcurl's words.
        private static func error(_ code: CURLcode, detail: String, url: URL?) -> URLError {
            let kind: URLError.Code = switch code {
            case CURLE_COULDNT_CONNECT: .cannotConnectToHost
            case CURLE_COULDNT_RESOLVE_HOST: .cannotFindHost
            case CURLE_OPERATION_TIMEDOUT: .timedOut
            case CURLE_PEER_FAILED_VERIFICATION: .serverCertificateUntrusted
            case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CACERT_BADFILE: .secureConnectionFailed
            case CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE: .networkConnectionLost
            default: .unknown
            }
            var info: [String: Any] = [NSLocalizedDescriptionKey: detail]
            if let url { info[NSURLErrorFailingURLErrorKey] = url }
            return URLError(kind, userInfo: info)
        }
    }
}
#endif
