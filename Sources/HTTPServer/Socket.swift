#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few POSIX socket calls the server makes, with EINTR handled and the platform
/// differences (constants, SIGPIPE suppression) kept in one place.
enum Socket {
    /// What a read with a deadline produced.
    enum ReadOutcome: Equatable {
        case bytes(Int)
        case closed
        case timedOut
        case failed
    }

    #if canImport(Glibc)
    private static let streamType = Int32(SOCK_STREAM.rawValue)
    /// Linux has no SO_NOSIGPIPE; each send asks not to raise SIGPIPE instead.
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
    private static let streamType = SOCK_STREAM
    private static let sendFlags: Int32 = 0
    #endif

    /// Copies a `sockaddr_in` or `sockaddr_in6` into `storage`; returns its size.
    private static func store<Address>(_ address: Address, in storage: inout sockaddr_storage) -> Int {
        withUnsafeBytes(of: address) { source in
            withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) }
        }
        return MemoryLayout<Address>.size
    }

    /// A listening socket bound to `host:port` (port 0: the system picks one), and the
    /// port it got.
    static func makeListener(host: String, port: UInt16, backlog: Int32) throws(HTTPServerError) -> (descriptor: Int32, port: UInt16) {
        var storage = sockaddr_storage()
        let length: Int
        var ipv4 = in_addr()
        var ipv6 = in6_addr()
        if inet_pton(AF_INET, host, &ipv4) == 1 {
            var address = sockaddr_in()
            #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
            #endif
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr = ipv4
            length = store(address, in: &storage)
        } else if inet_pton(AF_INET6, host, &ipv6) == 1 {
            var address = sockaddr_in6()
            #if canImport(Darwin)
            address.sin6_len = UInt8(MemoryLayout<sockaddr_in6>.size)
            #endif
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            address.sin6_addr = ipv6
            length = store(address, in: &storage)
        } else {
            throw .invalidHost(host)
        }

        let descriptor = socket(Int32(storage.ss_family), streamType, 0)
        guard descriptor >= 0 else { throw .socket(call: "socket", errno: errno) }
        do throws(HTTPServerError) {
            markCloseOnExec(descriptor)
            var one: Int32 = 1
            guard setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
                throw .socket(call: "setsockopt(SO_REUSEADDR)", errno: errno)
            }
            let bound = withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(length)) }
            }
            guard bound == 0 else { throw .socket(call: "bind", errno: errno) }
            guard listen(descriptor, backlog) == 0 else { throw .socket(call: "listen", errno: errno) }
            var actual = sockaddr_storage()
            var actualLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let named = withUnsafeMutablePointer(to: &actual) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &actualLength) }
            }
            guard named == 0 else { throw .socket(call: "getsockname", errno: errno) }
            let boundPort = withUnsafeBytes(of: actual) { raw -> UInt16 in
                if Int32(actual.ss_family) == AF_INET {
                    return UInt16(bigEndian: raw.loadUnaligned(as: sockaddr_in.self).sin_port)
                }
                return UInt16(bigEndian: raw.loadUnaligned(as: sockaddr_in6.self).sin6_port)
            }
            return (descriptor, boundPort)
        } catch {
            close(descriptor)
            throw error
        }
    }

    /// A connection to `host:port` (a name is resolved, each address tried in turn), with
    /// no Nagle delay and sends and the connect itself bounded by `timeout` (Linux bounds
    /// `connect` by SO_SNDTIMEO).
    static func connect(host: String, port: UInt16, timeout: Duration) -> Result<Int32, HTTPClientError> {
        var hints = addrinfo()
        hints.ai_socktype = streamType
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &list)
        guard resolved == 0, let list else { return .failure(.hostNotFound(host)) }
        defer { freeaddrinfo(list) }
        var failure = HTTPClientError.refused
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let address = entry?.pointee {
            entry = address.ai_next
            let descriptor = socket(address.ai_family, streamType, 0)
            guard descriptor >= 0 else { continue }
            markCloseOnExec(descriptor)
            configureConnection(descriptor, sendTimeout: timeout)
            setReceiveTimeout(descriptor, timeout)
            #if canImport(Glibc)
            let connected = Glibc.connect(descriptor, address.ai_addr, address.ai_addrlen)
            #else
            let connected = Darwin.connect(descriptor, address.ai_addr, address.ai_addrlen)
            #endif
            if connected == 0 { return .success(descriptor) }
            failure = [EAGAIN, EINPROGRESS, ETIMEDOUT].contains(errno) ? .timedOut : errno == ECONNREFUSED ? .refused : .failed(call: "connect", errno: errno)
            close(descriptor)
        }
        return .failure(failure)
    }

    /// A pipe whose write end, once closed, wakes a thread blocked in `poll` on its read end.
    static func makePipe() throws(HTTPServerError) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw .socket(call: "pipe", errno: errno) }
        markCloseOnExec(ends[0])
        markCloseOnExec(ends[1])
        return (ends[0], ends[1])
    }

    /// The next connection, or an errno when accept failed.
    static func acceptConnection(_ listener: Int32) -> Result<Int32, AcceptError> {
        while true {
            let descriptor = accept(listener, nil, nil)
            if descriptor >= 0 {
                markCloseOnExec(descriptor)
                return .success(descriptor)
            }
            if errno == EINTR { continue }
            return .failure(AcceptError(code: errno))
        }
    }

    struct AcceptError: Error {
        let code: Int32
        /// Out of descriptors or memory: retrying at once would spin, so back off.
        var isResourceExhaustion: Bool { [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(code) }
    }

    /// Sets up an accepted connection: no Nagle delay for small responses, no SIGPIPE,
    /// and sends that give up after `sendTimeout` so a client that never reads cannot
    /// hold its thread.
    static func configureConnection(_ descriptor: Int32, sendTimeout: Duration) {
        var one: Int32 = 1
        let size = socklen_t(MemoryLayout<Int32>.size)
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, size)
        #if canImport(Darwin)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, size)
        #endif
        var timeout = timeval(sendTimeout)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Makes a blocking send give up after `timeout`.
    static func setSendTimeout(_ descriptor: Int32, _ timeout: Duration) {
        var value = timeval(timeout)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Makes a blocking receive give up after `timeout` of silence.
    static func setReceiveTimeout(_ descriptor: Int32, _ timeout: Duration) {
        var value = timeval(timeout)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Reads what is available into `buffer`, blocking for at most the receive timeout: one
    /// call where ``read(_:into:until:)`` makes two, for a connection whose every wait has
    /// the same bound.
    static func receive(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) -> ReadOutcome {
        while true {
            let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if count > 0 { return .bytes(count) }
            if count == 0 { return .closed }
            if errno == EINTR { continue }
            return errno == EAGAIN || errno == EWOULDBLOCK ? .timedOut : .failed
        }
    }

    /// Waits until `descriptor` is readable or `deadline` passes; true when readable
    /// (which includes end of stream and errors, for the next read to report).
    static func waitReadable(_ descriptor: Int32, until deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let remaining = deadline - .now
            guard remaining > .zero else { return false }
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let result = poll(&entry, 1, milliseconds(roundingUp: remaining))
            if result > 0 { return true }
            if result < 0 && errno != EINTR { return true }
        }
    }

    /// Reads what is available into `buffer`, waiting no later than `deadline`.
    static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, until deadline: ContinuousClock.Instant) -> ReadOutcome {
        while true {
            guard waitReadable(descriptor, until: deadline) else { return .timedOut }
            let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if count > 0 { return .bytes(count) }
            if count == 0 { return .closed }
            if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { continue }
            return .failed
        }
    }

    /// Sends every byte; false when the peer went away or the send timeout passed.
    static func sendAll(_ descriptor: Int32, _ bytes: [UInt8], flags: Int32 = 0) -> Bool {
        bytes.withUnsafeBytes { sendAll(descriptor, $0, flags: flags) }
    }

    /// Sends every byte of a buffer; false when the peer went away or the send timeout passed.
    static func sendAll(_ descriptor: Int32, _ raw: UnsafeRawBufferPointer, flags: Int32 = 0) -> Bool {
        var offset = 0
        while offset < raw.count {
            let sent = send(descriptor, raw.baseAddress! + offset, raw.count - offset, sendFlags | flags)
            if sent > 0 {
                offset += sent
            } else if sent < 0 && errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }

    /// Sends without ever blocking: for a short answer on a connection about to be refused.
    static func sendWithoutWaiting(_ descriptor: Int32, _ bytes: [UInt8]) {
        _ = sendAll(descriptor, bytes, flags: Int32(MSG_DONTWAIT))
    }

    static func shutdownBoth(_ descriptor: Int32) {
        _ = shutdown(descriptor, Int32(SHUT_RDWR))
    }

    static func shutdownWrite(_ descriptor: Int32) {
        _ = shutdown(descriptor, Int32(SHUT_WR))
    }

    static func closeDescriptor(_ descriptor: Int32) {
        _ = close(descriptor)
    }

    static func milliseconds(roundingUp duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        let total = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: max(1, total))
    }

    private static func markCloseOnExec(_ descriptor: Int32) {
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
    }
}

extension timeval {
    /// `duration` as a socket timeout: at least a millisecond, since zero means none.
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self.init()
        tv_sec = .init(max(0, seconds))
        tv_usec = .init(max(0, attoseconds / 1_000_000_000_000))
        if tv_sec == 0 && tv_usec == 0 { tv_usec = 1000 }
    }
}
