import Foundation

extension Request {
    /// Retries this request's failed attempts as `retrier` decides, before the session's retrier.
    ///
    /// A retried download continues from the bytes it already has (`Range`) rather than restarting.
    /// Handlers and hooks see only the final attempt's outcome.
    /// - Parameter retrier: For example `.default` or `.exponential(retryLimit: 3)`.
    /// - Returns: The request.
    @discardableResult
    public func retry(_ retrier: some RequestRetrier) -> Self {
        core.addRetrier(retrier)
        return self
    }

    /// Fails the request with a timeout (``NetworkError/isTimeout``) if it has not finished
    /// `seconds` from now, whatever its attempts and retries are doing. Unlike the idle timeout
    /// (``Formable/idleTimeout``), a server trickling bytes cannot keep the request alive past it. It wins over the
    /// session's ``Session/Timeouts/total``, whenever it is chained.
    /// - Parameter seconds: The total time allowed.
    /// - Returns: The request.
    @discardableResult
    public func totalTimeout(_ seconds: TimeInterval) -> Self {
        core.setDeadline(seconds)
        return self
    }

    /// Adapts each attempt's request (an ``OutgoingRequest``) after the session's adapters.
    ///
    /// Chain it in the statement that creates the request (before the first handler or accessor)
    /// so it applies from the first attempt.
    /// - Parameter adapter: The adapter.
    /// - Returns: The request.
    @discardableResult
    public func adapt(_ adapter: some RequestAdapter) -> Self {
        core.addAdapter(adapter)
        return self
    }
}
