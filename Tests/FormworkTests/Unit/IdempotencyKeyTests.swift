import Foundation
import Testing

@testable import Formwork

@Suite("Idempotency-Key rules")
struct IdempotencyKeyTests {
    private func context(method: String, key: String?) -> RetryContext {
        let url = URL(string: "http://127.0.0.1/x")!
        var request = URLRequest(url: url)
        request.httpMethod = method
        if let key { request.setValue(key, forHTTPHeaderField: IdempotencyKey.headerName) }
        let response = HTTPURLResponse(url: url, statusCode: 503, httpVersion: "HTTP/1.1", headerFields: [:])
        let error = NetworkError(
            .unacceptableStatusCode, failureReason: "status", request: request, response: response)
        return RetryContext(request: request, response: response, error: error, retryCount: 0)
    }

    @Test("The one list of idempotent methods is the retry policy's default")
    func oneList() {
        #expect(RetryPolicy().retryableMethods == HTTPMethod.idempotentMethods)
        #expect(HTTPMethod.idempotentMethods == [.get, .head, .put, .delete, .options, .trace])
    }

    @Test(
        "A POST or PATCH is retried only when it carries a key, unless the policy says no",
        arguments: ["POST", "PATCH"])
    func retriedWithKeyOnly(method: String) {
        let policy = RetryPolicy()
        #expect(policy.decision(for: context(method: method, key: nil), now: Date()) == .doNotRetry)
        #expect(policy.decision(for: context(method: method, key: "\"k\""), now: Date()) != .doNotRetry)
        let strict = RetryPolicy(retriesRequestsWithIdempotencyKey: false)
        #expect(strict.decision(for: context(method: method, key: "\"k\""), now: Date()) == .doNotRetry)
    }

    @Test("Keys are sent as structured-field strings; unsendable keys are refused")
    func headerValue() {
        #expect(IdempotencyKey.headerValue(for: "abc-1") == "\"abc-1\"")
        #expect(IdempotencyKey.headerValue(for: #"a"b\c"#) == #""a\"b\\c""#)
        #expect(IdempotencyKey.headerValue(for: "") == nil)
        #expect(IdempotencyKey.headerValue(for: "a\r\nX-Forged: 1") == nil)
        #expect(IdempotencyKey.headerValue(for: "ключ") == nil)
    }

    @Test("Each new key is a fresh UUID")
    func freshKeys() {
        let (a, b) = (IdempotencyKey.make(), IdempotencyKey.make())
        #expect(a != b)
        #expect(UUID(uuidString: a) != nil)
    }
}
