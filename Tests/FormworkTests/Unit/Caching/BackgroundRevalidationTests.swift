import Foundation
import Testing

@testable import Formwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A form with the default cache policy.
private struct StaleForm: RequestFormable {
    var url: String
    var cachePolicy: CachePolicy = .useProtocol
}

/// A transport that holds every exchange until the test releases it, then answers it at once, on
/// the releasing thread: a conditional request with `304 Not Modified`, any other with a `200`.
private final class HeldTransport: Transport {
    struct Exchange {
        let request: URLRequest
        let events: any TransportEvents
    }

    private let state = Protected((made: 0, conditional: 0, held: [Exchange]()))
    /// The `ETag` the answers carry.
    let etag: String

    init(etag: String = "\"1\"") { self.etag = etag }

    /// How many exchanges were made; how many of them were conditional.
    var made: Int { state.withLock { $0.made } }
    var conditional: Int { state.withLock { $0.conditional } }
    /// How many exchanges wait for ``release()``.
    var held: Int { state.withLock { $0.held.count } }

    func makeTask(for request: TransportRequest, events: any TransportEvents) -> any TransportTask {
        HeldTask(transport: self, exchange: Exchange(request: request.urlRequest, events: events))
    }

    fileprivate func hold(_ exchange: Exchange) {
        state.withLock { state in
            state.made += 1
            if exchange.request.value(forHTTPHeaderField: "If-None-Match") != nil { state.conditional += 1 }
            state.held.append(exchange)
        }
    }

    /// Answers every held exchange; each has ended (its `finish` returned) when this returns.
    func release() {
        let exchanges = state.withLock { state in
            defer { state.held = [] }
            return state.held
        }
        for exchange in exchanges {
            guard let url = exchange.request.url else { continue }
            let conditional = exchange.request.value(forHTTPHeaderField: "If-None-Match") != nil
            let response = HTTPURLResponse(
                url: url, statusCode: conditional ? 304 : 200, httpVersion: "HTTP/1.1",
                headerFields: ["Cache-Control": "max-age=120, stale-while-revalidate=600", "ETag": etag])
            if let response, exchange.events.receiveResponseHead(TransportResponseHead(response)),
                !conditional
            {
                exchange.events.receiveBody(Data("network".utf8))
            }
            exchange.events.finish(nil)
        }
    }
}

private final class HeldTask: TransportTask {
    private let transport: HeldTransport
    private let exchange: HeldTransport.Exchange

    init(transport: HeldTransport, exchange: HeldTransport.Exchange) {
        self.transport = transport
        self.exchange = exchange
    }

    func resume() { transport.hold(exchange) }
    func cancel() {}
}

// Sendable: `exchange` is only read; `HeldTransport` guards its own state.
extension HeldTask: @unchecked Sendable {}

/// The background revalidation of `stale-while-revalidate` against a transport that holds it,
/// so every interleaving is forced rather than left to timing (issue 23 §5.1).
@Suite("HTTP cache background revalidation")
struct BackgroundRevalidationTests {
    let client = Client()
    let url = "http://127.0.0.1:9/stale"

    /// A cache holding a stale response within its `stale-while-revalidate` window.
    private func staleCache(_ cache: HTTPCache = HTTPCache(), body: Data = Data("stored".utf8)) -> HTTPCache {
        let then = Date() - 150
        cache.store(
            CacheEntry(
                url: url, statusCode: 200,
                headers: ["Cache-Control": "max-age=120, stale-while-revalidate=600", "ETag": "\"1\""],
                body: body, requestTime: then, responseTime: then, vary: []),
            for: CacheKey(method: "GET", url: url, credential: nil))
        return cache
    }

    private func session(_ cache: HTTPCache, _ transport: HeldTransport) -> Session {
        Session {
            $0.cache = cache
            $0.transport = transport
        }
    }

    /// Sends one request; when this returns, its cache lookup and any claim it made are done
    /// (the async accessor runs the attempt in the waiting task).
    private func send(_ session: Session) async -> DataResponse<Data> {
        await client.request(StaleForm(url: url), session: session).response()
    }

    @Test(
        "Stale hits while the revalidation is held start none of their own; after its 304 is stored, a hit is fresh"
    )
    func oneAtATime() async throws {
        let transport = HeldTransport()
        let session = session(staleCache(), transport)
        for _ in 0..<5 {
            let stale = await send(session)
            #expect(stale.source == .cache && stale.isStale && stale.value == Data("stored".utf8))
        }
        #expect(transport.made == 1 && transport.conditional == 1 && transport.held == 1)
        transport.release()
        let fresh = await send(session)
        #expect(fresh.source == .cache && !fresh.isStale && fresh.value == Data("stored".utf8))
        #expect(transport.made == 1)
    }

    @Test(
        "A stale hit that looked the entry up before the revalidation stored its 304, and claims after it ended, starts none"
    )
    func lateClaim() async throws {
        let transport = HeldTransport()
        let cache = staleCache()
        let session = session(cache, transport)
        #expect(await send(session).isStale)
        #expect(transport.held == 1)
        // The next hit has looked up the stale entry; the revalidation then stores its 304 and
        // ends, all before that hit claims one.
        cache.beforeNextClaim.withLock { $0 = { transport.release() } }
        let late = await send(session)
        #expect(late.source == .cache && late.isStale)
        #expect(transport.made == 1)
        let fresh = await send(session)
        #expect(fresh.source == .cache && !fresh.isStale)
        #expect(transport.made == 1)
    }

    @Test("The same with a response kept on disk only (too large for the memory tier)")
    func lateClaimOnDisk() async throws {
        let scratch = try ScratchDirectory("swr-disk")
        defer { scratch.remove() }
        let cache = try HTTPCache(directory: scratch.url, memoryCapacity: 4096)
        let body = Data(repeating: 0x61, count: 4096)
        let transport = HeldTransport()
        let session = session(staleCache(cache, body: body), transport)
        #expect(await send(session).isStale)
        #expect(transport.held == 1)
        cache.beforeNextClaim.withLock { $0 = { transport.release() } }
        let late = await send(session)
        #expect(late.source == .cache && late.isStale && late.value == body)
        #expect(transport.made == 1)
        await cache.waitForPendingWrites()
        let fresh = await send(session)
        #expect(fresh.source == .cache && !fresh.isStale && fresh.value == body)
        #expect(transport.made == 1)
    }

    @Test("A 304 for another representation stores nothing: the next stale hit revalidates again")
    func unmergedNotModified() async throws {
        let transport = HeldTransport(etag: "\"2\"")
        let session = session(staleCache(), transport)
        #expect(await send(session).isStale)
        transport.release()
        #expect(await send(session).isStale)
        #expect(transport.made == 2 && transport.conditional == 2)
    }
}
