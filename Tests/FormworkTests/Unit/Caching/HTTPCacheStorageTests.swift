import Foundation
import Testing

@testable import Formwork

@Suite("HTTP cache storage")
struct HTTPCacheStorageTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    private func entry(
        _ url: String = "http://127.0.0.1/a", body: String = "body", vary: [CacheVary.Value] = []
    )
        -> CacheEntry
    {
        CacheEntry(
            url: url, statusCode: 200, headers: ["Cache-Control": "max-age=60", "ETag": "\"1\""],
            body: Data(body.utf8), requestTime: now, responseTime: now + 1, vary: vary)
    }

    private func key(_ url: String = "http://127.0.0.1/a", credential: String? = nil) -> CacheKey {
        CacheKey(method: "GET", url: url, credential: credential)
    }

    @Test("An entry file reads back; every truncation and every flipped byte reads as nothing")
    func entryFileIntegrity() {
        let original = entry(body: "hello")
        let file = CacheEntryFile.encode(key: key().text, entry: original)
        let decoded = CacheEntryFile.decode(file, expectedKey: key().text)
        #expect(decoded?.entry == original)
        #expect(CacheEntryFile.decode(file, expectedKey: key("http://127.0.0.1/b").text) == nil)
        for length in 0..<file.count {
            #expect(CacheEntryFile.decode(file.prefix(length)) == nil, "truncated to \(length)")
        }
        for index in 0..<file.count {
            var damaged = file
            damaged[index] ^= 0x01
            #expect(CacheEntryFile.decode(damaged) == nil, "byte \(index) flipped")
        }
        #expect(CacheEntryFile.decode(file + Data([0])) == nil)
    }

    @Test("Entries survive a restart: a new cache on the same directory serves them")
    func survivesRestart() async throws {
        let scratch = try ScratchDirectory("cache")
        defer { scratch.remove() }
        let first = try HTTPCache(directory: scratch.url)
        first.store(entry(body: "kept"), for: key())
        await first.waitForPendingWrites()
        let second = try HTTPCache(directory: scratch.url)
        let found = await second.entry(for: key(), request: [:])
        #expect(found?.body == Data("kept".utf8))
        #expect(second.diskUsage > 0)
    }

    @Test("A damaged entry file is deleted and never served; a killed writer's temporary file is removed")
    func damagedFilesAreDropped() async throws {
        let scratch = try ScratchDirectory("cache")
        defer { scratch.remove() }
        let first = try HTTPCache(directory: scratch.url)
        first.store(entry(body: "will be torn"), for: key())
        await first.waitForPendingWrites()
        let name = try #require(try scratch.contents().first)
        // What a crash can leave: the entry cut short, and a temporary file never renamed.
        let bytes = try Data(contentsOf: scratch.file(name))
        try bytes.prefix(bytes.count - 3).write(to: scratch.file(name))
        try bytes.prefix(10).write(to: scratch.file(name + ".x" + HTTPCache.temporaryExtension))
        let second = try HTTPCache(directory: scratch.url)
        #expect(await second.entry(for: key(), request: [:]) == nil)
        await second.waitForPendingWrites()
        #expect(try scratch.contents().isEmpty)
        #expect(second.diskUsage == 0)
    }

    @Test(
        "One background revalidation at a time, and none once the looked-up response is no longer stored, in memory or on disk",
        arguments: [false, true])
    func revalidationClaims(onDisk: Bool) async throws {
        let scratch = try ScratchDirectory("claims")
        defer { scratch.remove() }
        // 64 bytes of memory: every entry lives on disk only.
        let cache = onDisk ? try HTTPCache(directory: scratch.url, memoryCapacity: 64) : HTTPCache()
        func claim(_ url: String = "http://127.0.0.1/a", of entry: CacheEntry) async -> Bool {
            await cache.beginRevalidation(key(url), of: entry, request: [:])
        }
        var stale = entry(body: "stale")
        // A time that an entry file does not give back exactly (seconds since 1970 as a double).
        stale.responseTime = Date(timeIntervalSinceReferenceDate: 785_000_000.1)
        cache.store(stale, for: key())
        #expect(await claim(of: stale))
        #expect(await !claim(of: stale))
        // The revalidation stores a newer response, then ends; a stale hit that looked the old
        // one up before that claims too late.
        var refreshed = stale
        refreshed.responseTime = stale.responseTime + 5
        cache.store(refreshed, for: key())
        cache.endRevalidation(key())
        #expect(await !claim(of: stale))
        // A refused claim holds nothing: a hit on the newer response may revalidate it.
        #expect(await claim(of: refreshed))
        cache.endRevalidation(key())
        // Nothing to revalidate once the response was removed.
        await cache.removeResponses(for: try #require(URL(string: "http://127.0.0.1/a")))
        #expect(await !claim(of: refreshed))
        // Another URL's claim is its own.
        let other = entry("http://127.0.0.1/b")
        cache.store(other, for: key("http://127.0.0.1/b"))
        #expect(await claim("http://127.0.0.1/b", of: other))
    }

    @Test("Vary: one stored response per set of varying values")
    func variants() async {
        let cache = HTTPCache()
        let english = entry(body: "en", vary: [CacheVary.Value(name: "accept-language", value: "en")])
        let french = entry(body: "fr", vary: [CacheVary.Value(name: "accept-language", value: "fr")])
        cache.store(english, for: key())
        cache.store(french, for: key())
        #expect(await cache.entry(for: key(), request: ["Accept-Language": "en"])?.body == Data("en".utf8))
        #expect(await cache.entry(for: key(), request: ["Accept-Language": "fr"])?.body == Data("fr".utf8))
        #expect(await cache.entry(for: key(), request: ["Accept-Language": "de"]) == nil)
    }

    @Test("Per credential: another credential never sees the entry; invalidation drops every credential's")
    func perCredential() async throws {
        let scratch = try ScratchDirectory("cache")
        defer { scratch.remove() }
        let cache = try HTTPCache(directory: scratch.url)
        let alice = CacheStorability.credentialKey(["Authorization": "Bearer alice-secret"], extraNames: [])
        let bob = CacheStorability.credentialKey(["Authorization": "Bearer bob-secret"], extraNames: [])
        let varying = CacheVary.values(
            for: ["authorization"], request: ["Authorization": "Bearer alice-secret"])
        cache.store(entry(body: "alice's", vary: varying), for: key(credential: alice))
        #expect(await cache.entry(for: key(credential: bob), request: [:]) == nil)
        #expect(await cache.entry(for: key(), request: [:]) == nil)
        let found = await cache.entry(
            for: key(credential: alice), request: ["Authorization": "Bearer alice-secret"])
        #expect(found?.body == Data("alice's".utf8))
        await cache.waitForPendingWrites()
        for name in try scratch.contents() {
            let text = String(decoding: try Data(contentsOf: scratch.file(name)), as: UTF8.self)
            #expect(!text.contains("alice-secret"))
        }
        cache.invalidate(["http://127.0.0.1/a"])
        await cache.waitForPendingWrites()
        #expect(
            await cache.entry(for: key(credential: alice), request: ["Authorization": "Bearer alice-secret"])
                == nil)
        #expect(try scratch.contents().isEmpty)
    }

    @Test("Bounded by bytes with 10,000 entries: least recently used go first, in memory and on disk")
    func sizeBound() async throws {
        let scratch = try ScratchDirectory("cache")
        defer { scratch.remove() }
        let cache = try HTTPCache(directory: scratch.url, memoryCapacity: 64 << 10, diskCapacity: 256 << 10)
        let body = String(repeating: "x", count: 200)
        for index in 0..<10_000 {
            cache.store(
                entry("http://127.0.0.1/n/\(index)", body: body), for: key("http://127.0.0.1/n/\(index)"))
            if index == 5 {
                // Used again just before the flood: still the oldest, so it goes first.
                _ = await cache.entry(for: key("http://127.0.0.1/n/5"), request: [:])
            }
        }
        await cache.waitForPendingWrites()
        #expect(cache.memoryUsage <= 64 << 10)
        #expect(cache.diskUsage <= 256 << 10)
        let files = try scratch.contents()
        #expect(files.count > 100 && files.count < 10_000)
        let onDisk = try files.reduce(0) { total, name in
            total
                + (try FileManager.default.attributesOfItem(atPath: scratch.file(name).path)[.size] as? Int
                    ?? 0)
        }
        #expect(onDisk == cache.diskUsage)
        #expect(await cache.entry(for: key("http://127.0.0.1/n/9999"), request: [:]) != nil)
        #expect(await cache.entry(for: key("http://127.0.0.1/n/0"), request: [:]) == nil)
        // A restart sees the same bound.
        let reopened = try HTTPCache(directory: scratch.url, diskCapacity: 256 << 10)
        await reopened.waitForPendingWrites()
        #expect(reopened.diskUsage == onDisk)
    }

    @Test("A cache directory that cannot be created is a clear NetworkError")
    func badDirectory() throws {
        let scratch = try ScratchDirectory("cache")
        defer { scratch.remove() }
        let file = try scratch.write(Data("x".utf8), to: "plain-file")
        #expect(throws: NetworkError.self) { try HTTPCache(directory: file.appendingPathComponent("sub")) }
    }

    @Test("A response that sets cookies is kept in memory only: no cache file holds a cookie")
    func cookiesStayInMemory() async throws {
        let scratch = try ScratchDirectory("cache")
        defer { scratch.remove() }
        let cache = try HTTPCache(directory: scratch.url)
        var withCookie = entry(body: "cookie")
        withCookie.headers["Set-Cookie"] = "session=secret"
        cache.store(entry(body: "plain"), for: key())
        await cache.waitForPendingWrites()
        #expect(cache.fileNames().count == 1)
        cache.store(withCookie, for: key())
        await cache.waitForPendingWrites()
        #expect(await cache.entry(for: key(), request: [:])?.headers["Set-Cookie"] == "session=secret")
        // The older file of the same response is gone too, and nothing on disk names the cookie.
        #expect(cache.fileNames().isEmpty)
        #expect(cache.diskUsage == 0)
        let restarted = try HTTPCache(directory: scratch.url)
        #expect(await restarted.entry(for: key(), request: [:]) == nil)
    }

    @Test("A stored 206 sits beside the complete response; the complete one is found first")
    func partialBesideComplete() async throws {
        let scratch = try ScratchDirectory("cache")
        defer { scratch.remove() }
        let cache = try HTTPCache(directory: scratch.url)
        var part = entry(body: "part")
        part.statusCode = 206
        part.headers["Content-Range"] = "bytes 0-3/10"
        cache.store(part, for: key())
        #expect(await cache.entry(for: key(), request: [:])?.statusCode == 206)
        cache.store(entry(body: "complete"), for: key())
        await cache.waitForPendingWrites()
        #expect(await cache.entry(for: key(), request: [:])?.statusCode == 200)
        let restarted = try HTTPCache(directory: scratch.url)
        #expect(await restarted.entry(for: key(), request: [:])?.statusCode == 200)
        #expect(restarted.fileNames().count == 2)
    }
}
