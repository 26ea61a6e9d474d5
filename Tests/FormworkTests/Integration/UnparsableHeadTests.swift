import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

/// The default retry policy, counting the retries it asks for.
private struct CountingRetryPolicy: RequestRetrier {
    let policy = RetryPolicy(baseDelay: 0.01)
    let retries = Counter()

    func decide(_ context: RetryContext) async -> RetryDecision {
        let decision = await policy.decide(context)
        if decision != .doNotRetry { retries.increment() }
        return decision
    }
}

@Suite("A response head the platform cannot parse")
struct UnparsableHeadTests {
    let client = Client()

    @Test("'HTTP/1.1 200' without a reason phrase is a bad server response, not a lost connection")
    func noReasonPhrase() async throws {
        let retrier = CountingRetryPolicy()
        let response = await client.request(
            TestForm(url: try await DemoServer.url("/fault/no-reason-phrase")), session: Session()
        )
        .retry(retrier)
        .handledString()
        if TransportUnderTest.isCorelibsURLSession {
            // corelibs URLSession cannot parse the status line (libcurl: -1 "Failed writing header").
            let error = try #require(response.error)
            #expect(error.kind == .transport)
            #expect(error.urlErrorCode == .cannotParseResponse)
            #expect(error.urlErrorCode != .networkConnectionLost)
            #expect(error.userMessage(using: .english).hasPrefix(MessageCatalog.english.unreadableResponse))
            #expect(error.failureReason.contains("-1017, reported as -1"))
            #expect(retrier.retries.count == 0)
        } else {
            // Apple's URLSession and AsyncHTTPClient read it: a reason phrase may be empty.
            #expect(response.value == "ok")
        }
    }

    @Test("A body cut short stays a lost connection, retried by the default policy")
    func cutBodyStaysConnectionLost() async throws {
        let retrier = CountingRetryPolicy()
        let response = await client.request(
            TestForm(url: try await DemoServer.url("/files/100000?cutAt=5000")), session: Session()
        )
        .retry(retrier)
        .handledString()
        #expect(response.error?.urlErrorCode == .networkConnectionLost)
        #expect(retrier.retries.count == 2)
    }
}
