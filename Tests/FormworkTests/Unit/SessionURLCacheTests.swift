import Foundation
import Testing

@testable import Formwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Session's URLSession configuration")
struct SessionURLCacheTests {
    @Test("A session runs without a URLCache (cancel-race crash on Linux), on every platform")
    func noURLCache() {
        #expect(Session().urlSession.configuration.urlCache == nil)
        #expect(URLSessionTransport().urlSession.configuration.urlCache == nil)
    }

    @Test("A given URLSessionConfiguration is copied: the transport drops its cache, the caller's keeps it")
    func givenConfigurationIsCopied() {
        let given = URLSessionConfiguration.ephemeral
        let cache = URLCache(memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: nil)
        given.urlCache = cache
        given.httpMaximumConnectionsPerHost = 3
        let transport = URLSessionTransport(configuration: given)
        given.httpMaximumConnectionsPerHost = 5  // a change afterwards reaches nothing
        let session = Session { $0.transport = transport }
        #expect(session.urlSessionTransport === transport)
        #expect(session.urlSession.configuration.urlCache == nil)
        #expect(session.urlSession.configuration.httpMaximumConnectionsPerHost == 3)
        #expect(given.urlCache === cache)
    }
}
