/// Puts a fixed `Authorization` value on every request, with no refresh.
public struct StaticAuthInterceptor: ChainInterceptor {
    public let field: HTTPField

    /// Validates the value up front, so a bad credential fails when configured, not mid-run.
    public init(authorization: String) throws(HeaderValidationError) {
        field = try HTTPField(name: "Authorization", value: authorization)
    }

    public func intercept(request: ChainRequest, next: ChainNext) async throws -> ChainResultStream {
        var request = request
        try request.additionalHeaders.set(field.name, field.value)
        return await next(request)
    }
}
