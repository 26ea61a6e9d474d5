import Foundation

/// Changes each outgoing request just before it is sent: adds a credential, signs the
/// parameters, adds shared base parameters.
///
/// Adapters run for every attempt (so a retry after a token refresh carries the new token), in
/// order: the session's first, then the request's. Each gets an ``OutgoingRequest``, whose header
/// fields are Formwork's own: every value is kept as set, and after the last adapter every header
/// is checked, so a value with CR, LF or NUL fails the request with
/// ``NetworkError/Kind/invalidHeader`` naming the header, before anything is sent, on every
/// platform. A thrown error fails the request with ``NetworkError/Kind/requestBuildFailed``.
///
/// ```swift
/// struct Signer: RequestAdapter {
///     func adapt(_ request: OutgoingRequest) async throws -> OutgoingRequest {
///         var request = request
///         request.headers["X-Signature"] = sign(request)
///         return request
///     }
/// }
/// ```
public protocol RequestAdapter: Sendable {
    /// Returns the request to send.
    /// - Parameter request: The request built from the form (and changed by earlier adapters).
    /// - Returns: The adapted request.
    /// - Throws: Any error, to fail the request.
    func adapt(_ request: OutgoingRequest) async throws -> OutgoingRequest
}

/// An adapter made from a closure.
public struct Adapter: RequestAdapter {
    private let body: @Sendable (OutgoingRequest) async throws -> OutgoingRequest

    /// Wraps a closure.
    /// - Parameter body: Returns the adapted request.
    public init(_ body: @escaping @Sendable (OutgoingRequest) async throws -> OutgoingRequest) {
        self.body = body
    }

    /// Calls the closure.
    /// - Parameter request: The request.
    /// - Returns: The adapted request.
    public func adapt(_ request: OutgoingRequest) async throws -> OutgoingRequest {
        try await body(request)
    }
}

/// Several adapters applied in order.
struct AdapterChain: RequestAdapter {
    /// The adapters, in the order they run.
    let adapters: [any RequestAdapter]

    /// Chains adapters.
    /// - Parameter adapters: The adapters, in the order they run.
    init(_ adapters: [any RequestAdapter]) {
        self.adapters = adapters
    }

    /// Runs every adapter in order.
    /// - Parameter request: The request.
    /// - Returns: The request after all adapters.
    func adapt(_ request: OutgoingRequest) async throws -> OutgoingRequest {
        var request = request
        for adapter in adapters {
            request = try await adapter.adapt(request)
        }
        return request
    }
}
