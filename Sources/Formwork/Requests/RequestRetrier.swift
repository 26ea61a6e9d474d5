import Foundation

/// What a retrier knows about a failed attempt.
public struct RetryContext: Sendable {
    /// The request that was sent.
    public let request: URLRequest?
    /// The response, if one arrived.
    public let response: HTTPURLResponse?
    /// Why the attempt failed.
    public let error: NetworkError
    /// How many retries this request has had so far (0 after the first attempt failed).
    public let retryCount: Int

    /// Creates a context (Formwork creates these; tests of custom retriers may too).
    /// - Parameters:
    ///   - request: The request sent.
    ///   - response: The response, if any.
    ///   - error: Why the attempt failed.
    ///   - retryCount: Retries so far.
    public init(request: URLRequest?, response: HTTPURLResponse?, error: NetworkError, retryCount: Int) {
        self.request = request
        self.response = response
        self.error = error
        self.retryCount = retryCount
    }
}

/// What to do after a failed attempt.
public enum RetryDecision: Sendable, Equatable {
    /// Send again after this many seconds.
    case retry(after: TimeInterval)
    /// Let the failure stand.
    case doNotRetry
}

/// Decides whether a failed attempt is sent again.
///
/// Retriers are asked in order, the request's first, then the session's; the first that says
/// `.retry` wins. Cancelled requests are never retried.
public protocol RequestRetrier: Sendable {
    /// Decides about a failed attempt.
    /// - Parameter context: The failure and the request's history.
    /// - Returns: Whether and when to retry.
    func decide(_ context: RetryContext) async -> RetryDecision
}

/// A retrier made from a closure.
public struct Retrier: RequestRetrier {
    private let body: @Sendable (RetryContext) async -> RetryDecision

    /// Wraps a closure.
    /// - Parameter body: Decides about a failed attempt.
    public init(_ body: @escaping @Sendable (RetryContext) async -> RetryDecision) {
        self.body = body
    }

    /// Calls the closure.
    /// - Parameter context: The failure.
    /// - Returns: The closure's decision.
    public func decide(_ context: RetryContext) async -> RetryDecision {
        await body(context)
    }
}

/// Several retriers asked in order; the first that says `.retry` decides (a request's own, then
/// ``Session/Interceptors/retriers``).
struct RetrierChain: RequestRetrier {
    /// The retriers, in the order they are asked.
    let retriers: [any RequestRetrier]

    /// Chains retriers.
    /// - Parameter retriers: The retriers, in the order they are asked.
    init(_ retriers: [any RequestRetrier]) {
        self.retriers = retriers
    }

    /// Asks each retrier in turn and returns the first `.retry`.
    /// - Parameter context: The failure.
    /// - Returns: The first `.retry`, or `.doNotRetry` if none retries.
    func decide(_ context: RetryContext) async -> RetryDecision {
        for retrier in retriers {
            let decision = await retrier.decide(context)
            if decision != .doNotRetry { return decision }
        }
        return .doNotRetry
    }
}
