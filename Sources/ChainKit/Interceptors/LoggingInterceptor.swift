/// Writes one line when an operation passes down and one for each result or error that comes
/// back up, to a sink you choose.
///
/// ```swift
/// let logging = LoggingInterceptor { line in print(line) }
/// // → HeroQuery (CacheFirst)
/// // ← HeroQuery result from server
/// ```
public struct LoggingInterceptor: ChainInterceptor {
    public let log: @Sendable (String) -> Void

    public init(log: @escaping @Sendable (String) -> Void) {
        self.log = log
    }

    public func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
        let name = request.operation.name, log = self.log
        log("→ \(name) (\(request.fetchBehavior))")
        return await next(request)
            .map { response in
                log("← \(name) result from \(response.source.rawValue)" + (response.errors?.isEmpty == false ? " with \(response.errors!.count) error(s)" : ""))
                return response
            }
            .mapErrors { error in
                log("✕ \(name): \(error)")
                throw error
            }
    }
}
