import Foundation

extension Outbox {
    /// How much an ``Outbox`` holds, how long a request stays worth sending, how long to wait
    /// between attempts and which failures end a request.
    public struct Options: Sendable {
        /// The most requests the outbox holds; an `enqueue` beyond it fails with
        /// ``NetworkError/Kind/outbox`` (``NetworkError/Reason/full``). Defaults to 1,000.
        public var maximumCount: Int
        /// The most bytes the outbox's pending entries and bodies take on disk. Defaults to 100 MiB.
        public var maximumBytes: Int64
        /// How long a request stays worth sending when its enqueue gives no expiry; `nil`: until
        /// it is sent. Defaults to 7 days. A request whose expiry passes before a final answer
        /// ends with ``NetworkError/Reason/expired``.
        public var expiry: TimeInterval?
        /// The waits between attempts: the delay grows from `baseDelay` to `maximumDelay` with
        /// full jitter, and a `Retry-After` of a `429` or `503` is honoured (capped at
        /// `maximumDelay`) when `honoursRetryAfter` is set. The outbox tries until a final answer
        /// or the expiry, so `retryLimit` is not used. Defaults to ``RetryPolicy/default``.
        public var backoff: RetryPolicy
        /// Whether a failure is final: the request leaves the outbox with it. Any other failure
        /// is tried again after a wait. Defaults to ``isPermanentByDefault(_:)``.
        public var isPermanent: @Sendable (NetworkError) -> Bool

        /// Creates options.
        /// - Parameters:
        ///   - maximumCount: The most requests held.
        ///   - maximumBytes: The most bytes on disk.
        ///   - expiry: How long a request stays worth sending; `nil`: forever.
        ///   - backoff: The waits between attempts.
        ///   - isPermanent: Whether a failure is final.
        public init(
            maximumCount: Int = 1_000,
            maximumBytes: Int64 = 100 * 1_024 * 1_024,
            expiry: TimeInterval? = 7 * 24 * 3_600,
            backoff: RetryPolicy = .default,
            isPermanent: @escaping @Sendable (NetworkError) -> Bool = Options.isPermanentByDefault
        ) {
            self.maximumCount = maximumCount
            self.maximumBytes = maximumBytes
            self.expiry = expiry
            self.backoff = backoff
            self.isPermanent = isPermanent
        }

        /// The default rule: a `4xx` other than `408 Request Timeout`, `409 Conflict` and
        /// `429 Too Many Requests` is final (the server understood the request and refuses it;
        /// sending it again cannot help), and so is a request that cannot be built (a bad URL or
        /// header, a body file gone). Everything else — no connection, timeouts, `408`, `429`,
        /// `5xx` — is tried again; so is `409`, which a server honouring `Idempotency-Key` sends
        /// while an earlier attempt with the same key is still being processed. A chain refused by
        /// the session's ``TrustPolicy`` is tried again (on the same host: a captive portal or a
        /// hostile network may be in the way); a transport that cannot enforce the policy
        /// (``NetworkError/Reason/trustNotEnforceable``) is final.
        /// - Parameter error: The failure of the latest attempt.
        /// - Returns: Whether it is final.
        public static func isPermanentByDefault(_ error: NetworkError) -> Bool {
            if let status = error.statusCode, error.kind == .unacceptableStatusCode {
                return (400..<500).contains(status) && ![408, 409, 429].contains(status)
            }
            let unbuildable: Set<NetworkError.Kind> = [
                .invalidURL, .invalidHeader, .parameterEncodingFailed, .multipartEncodingFailed,
                .requestBuildFailed, .fileOperationFailed,
            ]
            // A transport that cannot enforce the trust policy never will; a refused chain may
            // pass later (a captive portal or a hostile network), so it is tried again.
            if error.kind == .serverTrust { return error.reason == .trustNotEnforceable }
            return unbuildable.contains(error.kind)
        }
    }
}
