import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

/// A form of `/cache/resource` with a cache policy.
private struct CachedForm: RequestFormable {
    var url: String
    var method: HTTPMethod = .get
    var cachePolicy: CachePolicy = .useProtocol
}

/// Features crossed pairwise against the demo server (issue 24 §4): each case names what it
/// crosses and asserts the body delivered, the outcome and what reached the server.
@Suite("Features crossed against the demo server")
struct CrossFeatureTests {
    /// The transport under test is in place before any request.
    private let transport = TransportUnderTest.installed
    let client = Client()
    /// Asks the server for switches and counts, never through a cache.
    let plain = Session { $0.coalescesRequests = false }

    private func resource(_ id: String, _ query: String = "") async throws -> String {
        try await DemoServer.url("/cache/resource?id=\(id)\(query)")
    }

    private func switchResource(_ id: String, failing status: Int) async throws {
        let form = CachedForm(
            url: try await DemoServer.url("/cache/switch?id=\(id)&fail=\(status)"), method: .post,
            cachePolicy: .reloadIgnoringCache)
        _ = try await client.request(form, session: plain).data()
    }

    @Test(
        "Retry × cache: a retry answered from the cache delivers the cached body alone, not the failed attempt's"
    )
    func retryAnsweredFromCache() async throws {
        let id = "cross-\(UUID().uuidString)"
        let url = try await resource(id, "&cc=max-age=600")
        let session = Session { $0.cache = HTTPCache() }
        try await switchResource(id, failing: 503)
        let stored = Protected(Data())
        // Before the retry, the resource recovers and another request stores a fresh response:
        // the retry is answered from the cache.
        let retrier = Retrier { context in
            guard context.retryCount == 0 else { return .doNotRetry }
            do {
                try await switchResource(id, failing: 0)
                let fresh = try await client.request(CachedForm(url: url), session: session).data()
                stored.withLock { $0 = fresh }
                return .retry(after: 0)
            } catch {
                Issue.record("The request that stores a fresh response failed: \(error)")
                return .doNotRetry
            }
        }
        let request = client.request(CachedForm(url: url), session: session).retry(retrier)
        let outcome = await request.core.outcome()
        #expect(outcome.error == nil)
        #expect(outcome.attempt == 2)
        #expect(outcome.cache.source == .cache)
        #expect(!stored.withLock { $0 }.isEmpty)
        #expect(outcome.data == stored.withLock { $0 }, "The body is the cached one alone")
    }
}
