import Foundation

/// The standard retrier: a few retries with exponential backoff and full jitter, for idempotent
/// requests that failed in a way worth another try.
///
/// Defaults: up to 2 retries; delays drawn uniformly from `0...0.5 s × 2^n` (full jitter) and capped
/// at ``maximumDelay``; only idempotent methods (``HTTPMethod/idempotentMethods``), or any method
/// when the request carries an `Idempotency-Key` (``Request/idempotencyKey(_:)``); statuses 408, 429, 500, 502, 503, 504; transient
/// `URLError`s (timeout, connection lost or refused, DNS, offline, a body cut short); a
/// `Retry-After` header (seconds or an HTTP date) is honoured, also capped.
///
/// ```swift
/// request(form).retry(.default)
/// let api = Session { $0.interceptors.retriers = [RetryPolicy(retryLimit: 4)] }
/// ```
public struct RetryPolicy: RequestRetrier {
    /// The most retries per request.
    public var retryLimit: Int
    /// The backoff base: retry `n` (from 0) waits up to `baseDelay × 2^n`.
    public var baseDelay: TimeInterval
    /// No wait is longer than this, whether from backoff or `Retry-After`.
    public var maximumDelay: TimeInterval
    /// Methods that may be sent twice without harm.
    public var retryableMethods: Set<HTTPMethod>
    /// Whether a request of any method may be retried when it carries an `Idempotency-Key`
    /// header (the server de-duplicates it). Defaults to `true`.
    public var retriesRequestsWithIdempotencyKey: Bool
    /// Statuses worth another try.
    public var retryableStatusCodes: Set<Int>
    /// Transport failures worth another try.
    public var retryableURLErrorCodes: Set<URLError.Code>
    /// Whether a `Retry-After` header sets the delay.
    public var honoursRetryAfter: Bool
    /// Draws the jittered delay from a range; replaceable for deterministic tests.
    var random: @Sendable (ClosedRange<Double>) -> Double = { Double.random(in: $0) }

    /// The default statuses: 408, 429, 500, 502, 503, 504.
    public static let defaultRetryableStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504]

    /// The default transient transport failures.
    public static let defaultRetryableURLErrorCodes: Set<URLError.Code> = [
        .timedOut, .networkConnectionLost, .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed,
        .notConnectedToInternet, .badServerResponse,
        .unknown,  // corelibs reports a body cut short as -1 ("transfer closed with N bytes remaining")
    ]

    /// Creates a policy.
    /// - Parameters:
    ///   - retryLimit: The most retries per request (default 2).
    ///   - baseDelay: The backoff base in seconds (default 0.5).
    ///   - maximumDelay: The longest wait in seconds (default 30).
    ///   - retryableMethods: Methods that may be retried (default: ``HTTPMethod/idempotentMethods``).
    ///   - retriesRequestsWithIdempotencyKey: Whether a request with an `Idempotency-Key` may be
    ///     retried whatever its method (default `true`).
    ///   - retryableStatusCodes: Statuses that may be retried.
    ///   - retryableURLErrorCodes: Transport failures that may be retried.
    ///   - honoursRetryAfter: Whether `Retry-After` sets the delay (default `true`).
    public init(
        retryLimit: Int = 2,
        baseDelay: TimeInterval = 0.5,
        maximumDelay: TimeInterval = 30,
        retryableMethods: Set<HTTPMethod> = HTTPMethod.idempotentMethods,
        retriesRequestsWithIdempotencyKey: Bool = true,
        retryableStatusCodes: Set<Int> = RetryPolicy.defaultRetryableStatusCodes,
        retryableURLErrorCodes: Set<URLError.Code> = RetryPolicy.defaultRetryableURLErrorCodes,
        honoursRetryAfter: Bool = true
    ) {
        self.retryLimit = retryLimit
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.retryableMethods = retryableMethods
        self.retriesRequestsWithIdempotencyKey = retriesRequestsWithIdempotencyKey
        self.retryableStatusCodes = retryableStatusCodes
        self.retryableURLErrorCodes = retryableURLErrorCodes
        self.honoursRetryAfter = honoursRetryAfter
    }

    /// Decides with the rules above.
    /// - Parameter context: The failure.
    /// - Returns: `.retry(after:)` or `.doNotRetry`.
    public func decide(_ context: RetryContext) async -> RetryDecision {
        decision(for: context, now: Date())
    }

    /// The decision, as a pure function of the context and the time.
    func decision(for context: RetryContext, now: Date) -> RetryDecision {
        guard context.retryCount < retryLimit, isRetryable(context) else { return .doNotRetry }
        if honoursRetryAfter, let header = context.response?.value(forHTTPHeaderField: "Retry-After"),
            let wait = Self.retryAfter(header, now: now)
        {
            return .retry(after: min(wait, maximumDelay))
        }
        return .retry(after: random(delayRange(forRetry: context.retryCount)))
    }

    /// The full-jitter range for retry `n` (from 0): `0...min(maximumDelay, baseDelay × 2^n)`.
    /// - Parameter retry: The retry's index, from 0.
    /// - Returns: The range the delay is drawn from.
    func delayRange(forRetry retry: Int) -> ClosedRange<Double> {
        let exponent = Double(min(max(retry, 0), 62))
        let upper = min(maximumDelay, baseDelay * pow(2, exponent))
        return 0...max(0, upper)
    }

    private func isRetryable(_ context: RetryContext) -> Bool {
        let method = context.request?.httpMethod.map { HTTPMethod(rawValue: $0.uppercased()) } ?? .get
        guard
            retryableMethods.contains(method)
                || (retriesRequestsWithIdempotencyKey && IdempotencyKey.isPresent(in: context.request))
        else { return false }
        let error = context.error
        switch error.kind {
        case .transport:
            return error.urlErrorCode.map { retryableURLErrorCodes.contains($0) } ?? false
        case .unacceptableStatusCode:
            return error.statusCode.map { retryableStatusCodes.contains($0) } ?? false
        default:
            return false
        }
    }

    /// Reads a `Retry-After` value: delay-seconds or an HTTP date. Negative or unreadable → `nil`.
    /// - Parameters:
    ///   - value: The header's value.
    ///   - now: The current time, for HTTP dates.
    /// - Returns: The wait in seconds (0 for a date in the past), or `nil`.
    static func retryAfter(_ value: String, now: Date) -> TimeInterval? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed) {
            return seconds >= 0 ? TimeInterval(seconds) : nil
        }
        guard let date = HTTPDate.parse(trimmed) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}

extension RequestRetrier where Self == RetryPolicy {
    /// ``RetryPolicy`` with its defaults.
    public static var `default`: RetryPolicy { RetryPolicy() }

    /// ``RetryPolicy`` with exponential backoff from `baseDelay` and full jitter.
    /// - Parameters:
    ///   - retryLimit: The most retries.
    ///   - baseDelay: The backoff base in seconds.
    ///   - maximumDelay: The longest wait in seconds.
    /// - Returns: The policy.
    public static func exponential(
        retryLimit: Int = 2, baseDelay: TimeInterval = 0.5, maximumDelay: TimeInterval = 30
    )
        -> RetryPolicy
    {
        RetryPolicy(retryLimit: retryLimit, baseDelay: baseDelay, maximumDelay: maximumDelay)
    }
}
