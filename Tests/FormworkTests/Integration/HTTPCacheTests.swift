import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A form with a cache policy.
private struct CacheForm: RequestFormable {
    var url: String
    var method: HTTPMethod = .get
    var headers: HTTPHeaders = [:]
    var cachePolicy: CachePolicy = .useProtocol
}

/// What `/cache/resource` answers.
private struct Resource: Decodable, Sendable, Equatable {
    let id: String
    let version: Int
    let hit: Int
    let variant: String
}

/// What `/cache/stats` answers.
private struct Stats: Decodable, Sendable {
    let hits: Int
    let notModified: Int
    let conditional: Int
    let changes: Int
}

/// Collects what monitors hear.
private final class MetricsRecorder: EventMonitor {
    let finished = Protected([RequestMetrics]())
    func requestDidFinish(_ metrics: RequestMetrics) { finished.withLock { $0.append(metrics) } }
}

/// Formwork's HTTP cache against the demo server's `/cache` endpoints, which count what reaches
/// the server (issue 14 §1).
@Suite("HTTP cache")
struct HTTPCacheTests {
    let client = Client()
    /// Asks the server for counts, never through a cache.
    let plain = Session()

    private func newID() -> String { "r-\(UUID().uuidString)" }

    private func url(_ id: String, _ query: String) async throws -> String {
        try await DemoServer.url("/cache/resource?id=\(id)&\(query)")
    }

    private func stats(_ id: String) async throws -> Stats {
        let form = CacheForm(url: try await DemoServer.url("/cache/stats?id=\(id)"))
        return try await client.request(form, session: plain).decode(Stats.self)
    }

    /// Sends `form` and waits for its (first) response as handlers see it.
    private func fetch(_ form: CacheForm, session: Session) async -> DataResponse<Resource> {
        await withCheckedContinuation { continuation in
            client.request(form, session: session).responseDecodable(of: Resource.self) { response in
                continuation.resume(returning: response)
            }
        }
    }

    private func cachingSession(_ cache: HTTPCache = HTTPCache(), monitors: [any EventMonitor] = [])
        -> Session
    {
        Session {
            $0.cache = cache
            $0.interceptors.eventMonitors = monitors
        }
    }

    @Test("A fresh response is served from the cache: the second request never reaches the server")
    func freshness() async throws {
        let id = newID()
        let recorder = MetricsRecorder()
        let session = cachingSession(monitors: [recorder])
        let form = CacheForm(url: try await url(id, "cc=max-age=60"))
        let first = await fetch(form, session: session)
        let second = await fetch(form, session: session)
        #expect(first.source == .network && first.age == nil)
        #expect(second.source == .cache)
        #expect(second.isStale == false)
        #expect(second.value == first.value && first.value?.hit == 1)
        #expect(second.response?.value(forHTTPHeaderField: "Age") != nil)
        #expect(try await stats(id).hits == 1)
        let sources = recorder.finished.withLock { $0.map(\.source) }
        #expect(sources == [.network, .cache])
    }

    @Test("A stale response with an ETag is revalidated: a 304 gives the stored body, marked revalidated")
    func revalidation() async throws {
        let id = newID()
        let session = cachingSession()
        let form = CacheForm(url: try await url(id, "cc=max-age=0&etag=1"))
        let first = await fetch(form, session: session)
        let second = await fetch(form, session: session)
        #expect(second.source == .revalidated)
        #expect(second.value == first.value)
        #expect(second.response?.statusCode == 200)
        let counts = try await stats(id)
        #expect(counts.hits == 2 && counts.notModified == 1 && counts.conditional == 1)
    }

    @Test("Last-Modified alone revalidates with If-Modified-Since")
    func lastModified() async throws {
        let id = newID()
        let session = cachingSession()
        let form = CacheForm(url: try await url(id, "cc=no-cache&lastModified=1"))
        _ = await fetch(form, session: session)
        let second = await fetch(form, session: session)
        #expect(second.source == .revalidated && second.value?.hit == 1)
        #expect(try await stats(id).notModified == 1)
    }

    @Test("Vary: one stored response per Accept-Language; each is served to its own requests")
    func vary() async throws {
        let id = newID()
        let session = cachingSession()
        let address = try await url(id, "cc=max-age=60&vary=Accept-Language")
        let english = CacheForm(url: address, headers: ["Accept-Language": "en"])
        let french = CacheForm(url: address, headers: ["Accept-Language": "fr"])
        #expect(await fetch(english, session: session).source == .network)
        #expect(await fetch(french, session: session).source == .network)
        let englishAgain = await fetch(english, session: session)
        let frenchAgain = await fetch(french, session: session)
        #expect(englishAgain.source == .cache && englishAgain.value?.variant == "en")
        #expect(frenchAgain.source == .cache && frenchAgain.value?.variant == "fr")
        #expect(try await stats(id).hits == 2)
    }

    @Test("no-store is never stored")
    func noStore() async throws {
        let id = newID()
        let session = cachingSession()
        let form = CacheForm(url: try await url(id, "cc=no-store,max-age=60"))
        _ = await fetch(form, session: session)
        let second = await fetch(form, session: session)
        #expect(second.source == .network && second.value?.hit == 2)
    }

    @Test("A successful POST to the URL invalidates it: the next GET goes to the server")
    func invalidationByPost() async throws {
        let id = newID()
        let session = cachingSession()
        let address = try await url(id, "cc=max-age=60")
        let form = CacheForm(url: address)
        _ = await fetch(form, session: session)
        #expect(await fetch(form, session: session).source == .cache)
        _ = try await client.request(CacheForm(url: address, method: .post), session: session).data()
        let after = await fetch(form, session: session)
        #expect(after.source == .network && after.value?.version == 2)
    }

    @Test(
        "stale-while-revalidate: served stale at once; the server sees only conditional requests, each a 304")
    func staleWhileRevalidate() async throws {
        let id = newID()
        let session = cachingSession()
        // Age 150 on a max-age of 120: stale on arrival, inside a 600 s window. The 304 makes it
        // fresh for 120 s, so a slow machine (TSan, the whole suite at once) cannot see it go
        // stale again before the last check and revalidate a second time.
        let form = CacheForm(
            url: try await url(id, "cc=max-age=120,stale-while-revalidate=600&etag=1&age=150"))
        _ = await fetch(form, session: session)
        let stale = await withTaskGroup(of: DataResponse<Resource>.self) { group in
            for _ in 0..<5 { group.addTask { await fetch(form, session: session) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(stale.allSatisfy { $0.source == .cache && $0.value?.hit == 1 })
        #expect(stale.contains { $0.isStale })
        // Wait (bounded) for the background revalidation's 304 to be stored: a request then gets
        // the refreshed entry. Generous: under TSan with the whole suite, corelibs' one libcurl
        // queue (held back by other tests' downloads) has delayed requests by 15 s.
        var refreshed: DataResponse<Resource>?
        await eventually("the background revalidation's 304 stored", within: 90) {
            refreshed = await fetch(form, session: session)
            return refreshed?.isStale == false
        }
        #expect(refreshed?.source == .cache)
        let counts = try await stats(id)
        // One revalidation, conditional and answered 304 (nothing was fetched again in full). A
        // stale hit that looked the entry up before the 304 was stored, and claims the
        // revalidation after it ended, does not start a second one (seen under TSan before the
        // claim checked for a newer stored response; forced in "HTTP cache background
        // revalidation").
        #expect(counts.conditional == 1)
        #expect(counts.notModified == 1)
        #expect(counts.hits == 2)
    }

    @Test("stale-if-error: a 500 from the server is answered with the stale stored response, marked stale")
    func staleIfErrorOn500() async throws {
        let id = newID()
        let session = cachingSession()
        let form = CacheForm(url: try await url(id, "cc=max-age=10,stale-if-error=600&age=20"))
        let first = await fetch(form, session: session)
        let switchForm = CacheForm(
            url: try await DemoServer.url("/cache/switch?id=\(id)&fail=500"), method: .post)
        _ = try await client.request(switchForm, session: plain).data()
        let second = await fetch(form, session: session)
        #expect(second.error == nil)
        #expect(second.source == .cache && second.isStale)
        #expect(second.value == first.value)
        #expect(try await stats(id).hits == 2)
        // Without stale-if-error the failure stands.
        let other = CacheForm(url: try await url(id, "cc=max-age=10&age=20"))
        #expect(await fetch(other, session: session).error?.response?.statusCode == 500)
    }

    @Test("stale-if-error with the server down: the stored response answers the connection failure")
    func staleIfErrorServerDown() async throws {
        let cache = HTTPCache()
        let session = cachingSession(cache)
        let address = "http://127.0.0.1:\(try UnusedPort.find())/cache/resource?id=down"
        let body = Data(#"{"id":"down","version":1,"hit":1,"variant":""}"#.utf8)
        cache.store(
            CacheEntry(
                url: address, statusCode: 200,
                headers: [
                    "Cache-Control": "max-age=1, stale-if-error=600", "Content-Type": "application/json",
                ],
                body: body, requestTime: Date() - 30, responseTime: Date() - 30, vary: []),
            for: CacheKey(method: "GET", url: address, credential: nil))
        let response = await fetch(CacheForm(url: address), session: session)
        #expect(response.value?.id == "down")
        #expect(response.source == .cache && response.isStale)
    }

    @Test("Credentials: a private response is not stored; a public one is stored per credential")
    func credentials() async throws {
        let id = newID()
        let session = cachingSession()
        let alice: HTTPHeaders = ["Authorization": "Bearer alice"]
        let bob: HTTPHeaders = ["Authorization": "Bearer bob"]
        let privateForm = CacheForm(url: try await url(id, "cc=private,max-age=60"), headers: alice)
        _ = await fetch(privateForm, session: session)
        #expect(await fetch(privateForm, session: session).source == .network)
        let publicAddress = try await url(id, "cc=public,max-age=60")
        _ = await fetch(CacheForm(url: publicAddress, headers: alice), session: session)
        #expect(await fetch(CacheForm(url: publicAddress, headers: bob), session: session).source == .network)
        #expect(await fetch(CacheForm(url: publicAddress, headers: alice), session: session).source == .cache)
        #expect(await fetch(CacheForm(url: publicAddress), session: session).source == .network)
    }

    @Test(
        "Policies: reloadIgnoringCache asks the server; returnCacheElseLoad and cacheOnly take a stale entry")
    func policies() async throws {
        let id = newID()
        let session = cachingSession()
        let address = try await url(id, "cc=max-age=10&age=20")
        _ = await fetch(CacheForm(url: address), session: session)
        let reloaded = await fetch(
            CacheForm(url: address, cachePolicy: .reloadIgnoringCache), session: session)
        #expect(reloaded.source == .network && reloaded.value?.hit == 2)
        let cached = await fetch(CacheForm(url: address, cachePolicy: .returnCacheElseLoad), session: session)
        #expect(cached.source == .cache && cached.isStale && cached.value?.hit == 2)
        let only = await fetch(CacheForm(url: address, cachePolicy: .cacheOnly), session: session)
        #expect(only.source == .cache && only.value?.hit == 2)
        let missing = await fetch(
            CacheForm(url: try await url(newID(), "cc=max-age=60"), cachePolicy: .cacheOnly), session: session
        )
        #expect(missing.error?.kind == .transport)
        #expect(try await stats(id).hits == 2)
    }

    @Test("cacheThenNetwork: the handler gets the stored value first, then the network's, in that order")
    func cacheThenNetwork() async throws {
        let id = newID()
        let session = cachingSession()
        let address = try await url(id, "cc=max-age=60")
        _ = await fetch(CacheForm(url: address), session: session)
        let responses = await withCheckedContinuation { continuation in
            let received = Protected([DataResponse<Resource>]())
            client.request(CacheForm(url: address, cachePolicy: .cacheThenNetwork), session: session)
                .responseDecodable(of: Resource.self) { response in
                    let all = received.withLock { received in
                        received.append(response)
                        return received
                    }
                    if all.count == 2 { continuation.resume(returning: all) }
                }
        }
        #expect(responses.map(\.source) == [.cache, .network])
        #expect(responses.map { $0.value?.hit } == [1, 2])
    }

    @Test("cacheThenNetwork: the load mask shows once, until the cached value; the refresh shows none")
    @MainActor
    func cacheThenNetworkMask() async throws {
        let session = cachingSession()
        let address = try await url(newID(), "cc=max-age=60")
        _ = await fetch(CacheForm(url: address), session: session)
        let log = EventLog()
        let screen = Screen()
        let delivered = EventCounter()
        client.request(CacheForm(url: address, cachePolicy: .cacheThenNetwork), session: session)
            .load(RecordingLoad(name: "load", log: log, container: screen))
            .responseDecodable(of: Resource.self) { response in
                log.record("\(response.source) \(response.value?.hit ?? 0)")
                delivered.increment()
            }
        #expect(visibility(screen.view) == [true])
        await delivered.wait(for: 2)
        #expect(log.events == ["load.begin", "load.end", "cache 1", "network 2"])
        #expect(screen.view.masks.isEmpty)
    }

    @Test(
        "cacheThenNetwork: a refresh that fails for want of a network puts no reload prompt over the cached value"
    )
    @MainActor
    func cacheThenNetworkOfflineRefresh() async throws {
        let cache = HTTPCache()
        let session = cachingSession(cache)
        let address = "http://127.0.0.1:\(try UnusedPort.find())/cache/resource?id=offline"
        let body = Data(#"{"id":"offline","version":1,"hit":1,"variant":""}"#.utf8)
        cache.store(
            CacheEntry(
                url: address, statusCode: 200,
                headers: ["Cache-Control": "max-age=60", "Content-Type": "application/json"],
                body: body, requestTime: Date(), responseTime: Date(), vary: []),
            for: CacheKey(method: "GET", url: address, credential: nil))
        let screen = Screen()
        let log = EventLog()
        let delivered = EventCounter()
        client.request(CacheForm(url: address, cachePolicy: .cacheThenNetwork), session: session)
            .reload(on: screen)
            .responseDecodable(of: Resource.self) { response in
                log.record(
                    response.value.map { "value \($0.id)" } ?? "error \(response.error?.kind.name ?? "")")
                delivered.increment()
            }
        await delivered.wait(for: 2)
        #expect(log.events == ["value offline", "error transport"])
        #expect(screen.view.masks.isEmpty)
    }

    @Test("cacheThenNetwork: a cached answer that fails validation is dropped; the network's answer follows")
    @MainActor
    func cacheThenNetworkAfterFailedCheck() async throws {
        let id = newID()
        let asked = Protected(0)
        let session = Session {
            $0.cache = HTTPCache()
            $0.interceptors.retriers = [
                Retrier { _ in
                    asked.withLock { $0 += 1 }
                    return .doNotRetry
                }
            ]
        }
        let address = try await url(id, "cc=max-age=60")
        #expect(await fetch(CacheForm(url: address), session: session).value?.version == 1)
        // The resource changes behind the cache's back (the cache sees no POST to invalidate it).
        _ = try await client.request(CacheForm(url: address, method: .post), session: plain).data()
        let log = EventLog()
        let screen = Screen()
        let delivered = EventCounter()
        let form = CacheForm(url: address, cachePolicy: .cacheThenNetwork)
        let request = client.request(form, session: session)
            .load(RecordingLoad(name: "load", log: log, container: screen))
            .validate { _, _, data in
                // This app needs version 2 or later: the stored version 1 fails the check.
                let resource = try JSONDecoder().decode(Resource.self, from: data ?? Data())
                if resource.version < 2 { throw URLError(.cannotDecodeContentData) }
            }
            .responseDecodable(of: Resource.self) { response in
                log.record("\(response.source) \(response.value?.version ?? 0)")
                delivered.increment()
            }
        await delivered.wait(for: 1)
        // Chained after the end, a handler runs at once with the same (only) outcome.
        request.response { _ in delivered.increment() }
        await delivered.wait(for: 2)
        #expect(log.events == ["load.begin", "load.end", "network 2"])
        #expect(screen.view.masks.isEmpty)
        #expect(asked.withLock { $0 } == 0)
        #expect(try await stats(id).hits == 2)
    }

    @Test("Crash safety: a torn entry file and a killed writer's temporary file are never served")
    func crashSafety() async throws {
        // Simulated: the files a writer killed mid-write leaves (see the storage unit tests, which
        // also cut the entry at every length and flip every byte).
        let id = newID()
        let scratch = try ScratchDirectory("http-cache")
        defer { scratch.remove() }
        let form = CacheForm(url: try await url(id, "cc=max-age=600"))
        do {
            let cache = try HTTPCache(directory: scratch.url)
            _ = await fetch(form, session: cachingSession(cache))
            await cache.waitForPendingWrites()
        }
        let name = try #require(try scratch.contents().first)
        let bytes = try Data(contentsOf: scratch.file(name))
        try bytes.prefix(bytes.count / 2).write(to: scratch.file(name))
        try bytes.prefix(40).write(to: scratch.file(name + ".torn" + HTTPCache.temporaryExtension))
        let reopened = try HTTPCache(directory: scratch.url)
        let response = await fetch(form, session: cachingSession(reopened))
        #expect(response.source == .network && response.value?.hit == 2)
        await reopened.waitForPendingWrites()
        // The torn file was replaced by the new, whole entry; the temporary file is gone.
        let names = try scratch.contents()
        #expect(names == [name])
        let again = try HTTPCache(directory: scratch.url)
        #expect(await fetch(form, session: cachingSession(again)).source == .cache)
    }

    @Test("Size bound: a small cache keeps the most recent responses within its bytes and evicts the oldest")
    func sizeBound() async throws {
        // 10,000 entries against the byte bound: see the "HTTP cache storage" unit suite.
        let cache = HTTPCache(memoryCapacity: 4 << 10)
        let session = cachingSession(cache)
        var addresses: [String] = []
        for _ in 0..<40 {
            let address = try await url(newID(), "cc=max-age=600")
            addresses.append(address)
            #expect(await fetch(CacheForm(url: address), session: session).source == .network)
            #expect(cache.memoryUsage <= 4 << 10)
        }
        #expect(await fetch(CacheForm(url: addresses[39]), session: session).source == .cache)
        #expect(await fetch(CacheForm(url: addresses[0]), session: session).source == .network)
    }

    @Test("Downloads and uploads are not cached")
    func transfersAreNotCached() async throws {
        let id = newID()
        let session = cachingSession()
        let address = try await url(id, "cc=max-age=60")
        struct Download: DownloadFormable { let url: String }
        for _ in 0..<2 {
            let file = try await client.download(Download(url: address), session: session).fileURL()
            try? FileManager.default.removeItem(at: file)
        }
        #expect(try await stats(id).hits == 2)
    }
}
