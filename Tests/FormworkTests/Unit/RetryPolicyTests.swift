import Foundation
import Testing

@testable import Formwork

@Suite("Retry policy")
struct RetryPolicyTests {
    private func context(
        method: String = "GET", status: Int? = nil, urlError: URLError.Code? = nil, retryAfter: String? = nil,
        retryCount: Int = 0
    ) -> RetryContext {
        let url = URL(string: "http://127.0.0.1/x")!
        var request = URLRequest(url: url)
        request.httpMethod = method
        let response = status.map {
            HTTPURLResponse(
                url: url, statusCode: $0, httpVersion: "HTTP/1.1",
                headerFields: retryAfter.map { ["Retry-After": $0] } ?? [:])!
        }
        let error: NetworkError =
            if let urlError {
                .transport(URLError(urlError), request: request, response: nil, data: nil)
            } else {
                NetworkError(
                    .unacceptableStatusCode, failureReason: "status", request: request, response: response)
            }
        return RetryContext(request: request, response: response, error: error, retryCount: retryCount)
    }

    /// A policy whose jitter always picks the top of the range, so delays are exact.
    private var topOfRange: RetryPolicy {
        var policy = RetryPolicy()
        policy.random = { $0.upperBound }
        return policy
    }

    @Test("Defaults: 2 retries, 0.5 s base, idempotent methods, the listed statuses")
    func defaults() {
        let policy = RetryPolicy()
        #expect(policy.retryLimit == 2)
        #expect(policy.baseDelay == 0.5)
        #expect(policy.retryableStatusCodes == [408, 429, 500, 502, 503, 504])
        #expect(policy.retryableMethods.allSatisfy { $0.isIdempotent })
        #expect(!policy.retryableMethods.contains(.post))
    }

    @Test("Backoff doubles from the base and is capped; full jitter draws from zero")
    func backoff() {
        let policy = RetryPolicy(baseDelay: 0.5, maximumDelay: 3)
        #expect(policy.delayRange(forRetry: 0) == 0...0.5)
        #expect(policy.delayRange(forRetry: 1) == 0...1)
        #expect(policy.delayRange(forRetry: 2) == 0...2)
        #expect(policy.delayRange(forRetry: 3) == 0...3)
        #expect(policy.delayRange(forRetry: 500) == 0...3)
        #expect(
            topOfRange.decision(for: context(status: 503, retryCount: 1), now: Date()) == .retry(after: 1))
    }

    @Test(
        "Retryable statuses and transient transport errors are retried",
        arguments: [408, 429, 500, 502, 503, 504])
    func retryableStatus(status: Int) {
        #expect(topOfRange.decision(for: context(status: status), now: Date()) == .retry(after: 0.5))
    }

    @Test("Other statuses are not retried", arguments: [400, 401, 403, 404, 409, 422, 501])
    func otherStatus(status: Int) {
        #expect(RetryPolicy().decision(for: context(status: status), now: Date()) == .doNotRetry)
    }

    @Test(
        "Transient URL errors are retried; others are not",
        arguments: [
            (URLError.Code.timedOut, true), (.networkConnectionLost, true), (.cannotConnectToHost, true),
            (.unknown, true), (.notConnectedToInternet, true), (.badURL, false),
            (.secureConnectionFailed, false),
            (.userAuthenticationRequired, false),
        ])
    func transport(code: URLError.Code, retried: Bool) {
        let decision = topOfRange.decision(for: context(urlError: code), now: Date())
        #expect((decision != .doNotRetry) == retried)
    }

    @Test("Cancellations, non-idempotent methods and exhausted limits are not retried")
    func notRetried() {
        #expect(RetryPolicy().decision(for: context(urlError: .cancelled), now: Date()) == .doNotRetry)
        #expect(RetryPolicy().decision(for: context(method: "POST", status: 503), now: Date()) == .doNotRetry)
        #expect(
            RetryPolicy().decision(for: context(method: "PATCH", status: 503), now: Date()) == .doNotRetry)
        #expect(RetryPolicy().decision(for: context(status: 503, retryCount: 2), now: Date()) == .doNotRetry)
        #expect(RetryPolicy(retryLimit: 0).decision(for: context(status: 503), now: Date()) == .doNotRetry)
    }

    @Test("Retry-After in seconds or as an HTTP date sets the delay, capped")
    func retryAfter() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(
            RetryPolicy().decision(for: context(status: 429, retryAfter: "7"), now: now) == .retry(after: 7))
        let date = HTTPDate.string(from: now.addingTimeInterval(12))
        #expect(
            RetryPolicy().decision(for: context(status: 503, retryAfter: date), now: now) == .retry(after: 12)
        )
        let capped = RetryPolicy(maximumDelay: 5)
        #expect(capped.decision(for: context(status: 429, retryAfter: "3600"), now: now) == .retry(after: 5))
        #expect(RetryPolicy.retryAfter("Sun, 06 Nov 1994 08:49:37 GMT", now: now) == 0)
        #expect(
            RetryPolicy.retryAfter("Sunday, 06-Nov-94 08:49:37 GMT", now: Date(timeIntervalSince1970: 0))
                != nil)
        #expect(
            RetryPolicy.retryAfter("Sun Nov  6 08:49:37 1994", now: Date(timeIntervalSince1970: 0)) != nil)
        #expect(RetryPolicy.retryAfter("-5", now: now) == nil)
        #expect(RetryPolicy.retryAfter("soon", now: now) == nil)
    }

    @Test("A chain asks its retriers in order and takes the first that retries")
    func chain() async {
        let never = Retrier { _ in .doNotRetry }
        let soon = Retrier { _ in .retry(after: 1) }
        let later = Retrier { _ in .retry(after: 9) }
        #expect(await RetrierChain([never, soon, later]).decide(context(status: 503)) == .retry(after: 1))
        #expect(await RetrierChain([never, never]).decide(context(status: 503)) == .doNotRetry)
        #expect(await RetrierChain([]).decide(context(status: 503)) == .doNotRetry)
    }

    @Test("An adapter chain runs its adapters in order")
    func adapterChain() async throws {
        let first = Adapter { request in
            var request = request
            request.setValue("1", forHTTPHeaderField: "X-Order")
            return request
        }
        let second = Adapter { request in
            var request = request
            request.setValue(
                (request.value(forHTTPHeaderField: "X-Order") ?? "") + "2", forHTTPHeaderField: "X-Order")
            return request
        }
        let adapted = try await AdapterChain([first, second]).adapt(
            OutgoingRequest(URLRequest(url: URL(string: "http://h/")!)))
        #expect(adapted.value(forHTTPHeaderField: "X-Order") == "12")
    }
}
