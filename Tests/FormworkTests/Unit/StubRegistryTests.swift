import Foundation
import Testing

@testable import Formwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Stub registry")
struct StubRegistryTests {
    @Test("A matcher runs outside the registry's lock: it may read the recorded requests")
    func matcherReadsRequests() throws {
        let stubs = StubRegistry()
        stubs.stub(where: { _ in stubs.requests.count == 1 }, respond: { _ in .text("first") })
        let url = try #require(URL(string: "http://127.0.0.1/a"))
        // Under the lock, the matcher's read would wait for the lock its own call holds: on
        // another thread, so that the wait runs out instead of the suite hanging.
        let answered = Protected<StubResponse?>(nil)
        let returned = returnsOnAnotherThread("a matcher reads the registry's requests") {
            let response = stubs.response(for: URLRequest(url: url))
            answered.withLock { $0 = response }
        }
        guard returned else { return }  // nothing more is read from the registry: its lock is held for good
        #expect(answered.current != nil)
        #expect(stubs.requests.count == 1)
    }
}
