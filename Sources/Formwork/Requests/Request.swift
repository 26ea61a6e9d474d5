import Foundation

/// What every request type shares: identity, state, cancellation, validation and the hooks.
///
/// ``DataRequest``, ``UploadRequest``, ``DownloadRequest`` and ``StreamRequest`` are kinds of
/// `Request`; the hooks and handlers defined on `Request` work the same on each. Formwork makes
/// requests (see ``Requestable``); apps do not subclass it.
public class Request: @unchecked Sendable {  // every stored property, here and below, is a Sendable `let`
    /// The engine that runs the request.
    let core: RequestCore

    init(core: RequestCore) {
        self.core = core
    }
}

extension Request {
    /// A unique id for this request.
    public var id: UUID { core.id }

    /// The `URLRequest` sent by the latest attempt, once built.
    public var request: URLRequest? { core.request }

    /// The HTTP response of the latest attempt, once received.
    public var response: HTTPURLResponse? { core.response }

    /// `true` once the request finished, failed or was cancelled.
    public var isFinished: Bool {
        let phase = core.lifecycleState
        return phase == .finished || phase == .cancelled
    }

    /// `true` if the request was cancelled.
    public var isCancelled: Bool { core.lifecycleState == .cancelled }

    /// Starts the request now if nothing has started it yet; does nothing otherwise.
    ///
    /// Rarely needed: the first handler, hook or async accessor starts a request, and so does the
    /// end of the statement that created it on an actor. A request created in `nonisolated` code
    /// with nothing chained waits for this call.
    /// - Returns: The request.
    @discardableResult
    public func resume() -> Self {
        core.start()
        return self
    }

    /// Cancels the request. Handlers receive a ``NetworkError`` with ``NetworkError/isCancelled``.
    /// - Returns: The request.
    @discardableResult
    public func cancel() -> Self {
        core.cancel()
        return self
    }
}

// MARK: - Validation

extension Request {
    /// Accepts only 2xx responses and, when the request has an `Accept` header, only bodies of a
    /// matching content type. Replaces the session's default status range for this request.
    /// - Returns: The request.
    @discardableResult
    public func validate() -> Self {
        core.updateValidation { rules in
            rules.statusCodeSets.append(Set(200..<300))
            rules.checksContentType = true
        }
        return self
    }

    /// Accepts only the given status codes. Replaces the session's default status range for this
    /// request; several calls must all accept a status.
    /// - Parameter statusCodes: The acceptable codes, e.g. `200..<300` or `[200, 304]`.
    /// - Returns: The request.
    @discardableResult
    public func validate(statusCode statusCodes: some Sequence<Int>) -> Self {
        let set = Set(statusCodes)
        core.updateValidation { $0.statusCodeSets.append(set) }
        return self
    }

    /// Adds a custom check; throwing rejects the response with ``NetworkError/Kind/validationFailed``.
    /// - Parameter validation: Receives the request, the response and the body (for downloads,
    ///   `nil`: the body is on disk).
    /// - Returns: The request.
    @discardableResult
    public func validate(
        _ validation:
            @escaping @Sendable (_ request: URLRequest?, _ response: HTTPURLResponse, _ data: Data?) throws ->
            Void
    ) -> Self {
        core.updateValidation { $0.custom.append(validation) }
        return self
    }
}
