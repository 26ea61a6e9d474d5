import Foundation

/// Changes each outgoing `URLRequest` just before it is sent: adds a credential, signs the
/// parameters, adds shared base parameters.
///
/// Adapters run for every attempt (so a retry after a token refresh carries the new token), in
/// order: the session's first, then the request's. A thrown error fails the request with
/// ``NetworkError/Kind/requestBuildFailed``.
///
/// Set headers through `request.headers` (Formwork's ``HTTPHeaders`` on `URLRequest`): every
/// header of the adapted request is checked before it is sent, and a value with CR, LF or NUL
/// fails the request with ``NetworkError/Kind/invalidHeader`` naming the header. `setValue(_:
/// forHTTPHeaderField:)` works too, but on Linux it silently drops such a value before Formwork
/// can see it (or keeps the old value it was meant to replace), so the request would go out
/// without it.
///
/// ```swift
/// struct Signer: RequestAdapter {
///     func adapt(_ request: URLRequest) async throws -> URLRequest {
///         var request = request
///         request.headers["X-Signature"] = sign(request)
///         return request
///     }
/// }
/// ```
public protocol RequestAdapter: Sendable {
    /// Returns the request to send.
    /// - Parameter request: The request built from the form (and earlier adapters).
    /// - Returns: The adapted request.
    /// - Throws: Any error, to fail the request.
    func adapt(_ request: URLRequest) async throws -> URLRequest
}

/// An adapter made from a closure.
public struct Adapter: RequestAdapter {
    private let body: @Sendable (URLRequest) async throws -> URLRequest

    /// Wraps a closure.
    /// - Parameter body: Returns the adapted request.
    public init(_ body: @escaping @Sendable (URLRequest) async throws -> URLRequest) {
        self.body = body
    }

    /// Calls the closure.
    /// - Parameter request: The request.
    /// - Returns: The adapted request.
    public func adapt(_ request: URLRequest) async throws -> URLRequest {
        try await body(request)
    }
}

/// Several adapters applied in order.
public struct AdapterChain: RequestAdapter {
    /// The adapters, in the order they run.
    public let adapters: [any RequestAdapter]

    /// Chains adapters.
    /// - Parameter adapters: The adapters, in the order they run.
    public init(_ adapters: [any RequestAdapter]) {
        self.adapters = adapters
    }

    /// Runs every adapter in order.
    /// - Parameter request: The request.
    /// - Returns: The request after all adapters.
    public func adapt(_ request: URLRequest) async throws -> URLRequest {
        var request = request
        for adapter in adapters {
            request = try await adapter.adapt(request)
        }
        return request
    }
}
