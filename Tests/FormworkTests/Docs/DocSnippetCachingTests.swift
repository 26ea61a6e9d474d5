import Formwork
import Foundation
import Testing

// Caching.md (shared types and helpers: DocSnippetSupport.swift).

extension DocSnippetTests {
    @Suite("DocC article snippets: Caching")
    struct CachingTests {
        struct ArticlesForm: RequestFormable {
            var url: String { "https://api.example.com/articles" }
            var cachePolicy: CachePolicy { .cacheThenNetwork }
        }

        @Test("Caching: a disk cache on a session; a cache-then-network form gets both answers")
        func caching() async throws {
            let caches = FileManager.default.temporaryDirectory  // the article: the caches directory
                .appendingPathComponent("doc-cache-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: caches) }
            let cache = try HTTPCache(
                directory: caches.appendingPathComponent("api-cache"),
                memoryCapacity: 8 << 20, diskCapacity: 64 << 20)
            let stubs = StubRegistry()
            stubs.stub(
                .get, "https://api.example.com/articles",
                StubResponse(headers: ["Cache-Control": "max-age=60"], body: Data("[1]".utf8)))
            var configuration = Session.Configuration()
            configuration.cache = cache
            let api = Session(stubs: stubs, configuration: configuration)
            struct Client: Requestable {}
            let first = try await Client().request(ArticlesForm(), session: api).data()
            #expect(first == Data("[1]".utf8))
            let sources = await withCheckedContinuation { continuation in
                let seen = Lines()
                Client().request(ArticlesForm(), session: api).responseData { response in
                    seen.append(response.source.rawValue)
                    if seen.all.count == 2 { continuation.resume(returning: seen.all) }
                }
            }
            #expect(sources == ["cache", "network"])
            #expect(bytesInMemory(of: cache) > 0)
        }
    }
}
