/// How much a single request may weigh before the server refuses it.
public struct HTTPRequestLimits: Sendable, Hashable {
    /// The most bytes the request head may take: request line, header lines, the blank
    /// line that ends them, and any empty lines before the request line. Beyond it the
    /// request is refused with 431.
    public var maxHeaderBytes: Int
    /// The largest Content-Length accepted. Beyond it the request is refused with 413
    /// before any of the body is read.
    public var maxBodyBytes: Int

    /// 16 KiB of head and 1 MiB of body by default.
    public init(maxHeaderBytes: Int = 16 * 1024, maxBodyBytes: Int = 1024 * 1024) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxBodyBytes = maxBodyBytes
    }
}
