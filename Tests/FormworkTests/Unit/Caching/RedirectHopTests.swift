import Foundation
import Testing

@testable import Formwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport whose every answer is a fresh `301` from `/a` to `/b` and from `/b` to `/a`, given
/// as a real transport gives one: it asks its events whether to follow, then (not followed)
/// reports the `301` as the response. It counts the exchanges made.
private final class CircleTransport: Transport {
    private let made = Protected(0)
    var exchanges: Int { made.withLock { $0 } }

    func makeTask(for request: TransportRequest, events: any TransportEvents) -> any TransportTask {
        made.withLock { $0 += 1 }
        return CircleTask(request: request.urlRequest, events: events)
    }
}

private final class CircleTask: TransportTask {
    let request: URLRequest
    let events: any TransportEvents

    init(request: URLRequest, events: any TransportEvents) {
        self.request = request
        self.events = events
    }

    func resume() {
        guard let url = request.url,
            let other = URL(string: url.path == "/a" ? "/b" : "/a", relativeTo: url)?.absoluteURL,
            let response = HTTPURLResponse(
                url: url, statusCode: 301, httpVersion: "HTTP/1.1",
                headerFields: ["Location": other.absoluteString, "Cache-Control": "max-age=600"])
        else { return events.finish(URLError(.badURL)) }
        var next = request
        next.url = other
        if events.redirect(response, to: next) == nil,
            events.receiveResponseHead(TransportResponseHead(response))
        {
            events.receiveBody(Data("moved".utf8))
        }
        events.finish(nil)
    }

    func cancel() {}
}

@Suite("HTTP cache: redirect hops")
struct RedirectHopTests {
    @Test("Stored redirects in a circle end with too many redirects, the server asked once per URL")
    func storedCircle() async throws {
        let transport = CircleTransport()
        let session = Session {
            $0.cache = HTTPCache()
            $0.transport = transport
        }
        let outcome = await Client().request(TestForm(url: "http://circle.invalid/a"), session: session)
            .core.outcome()
        #expect(outcome.error?.urlErrorCode == .httpTooManyRedirects)
        // `/a` and `/b` from the server; every later hop from the cache.
        #expect(transport.exchanges == 2)
    }

    @Test("A session that refuses redirects gets the stored redirect as its response")
    func refusedFromCache() async throws {
        let transport = CircleTransport()
        let cache = HTTPCache()
        let refusing = Session {
            $0.cache = cache
            $0.transport = transport
            $0.redirectPolicy = .refuse
        }
        let first = await Client().request(TestForm(url: "http://circle.invalid/a"), session: refusing)
            .core.outcome()
        let second = await Client().request(TestForm(url: "http://circle.invalid/a"), session: refusing)
            .core.outcome()
        #expect(first.response?.statusCode == 301 && second.response?.statusCode == 301)
        #expect(second.response?.value(forHTTPHeaderField: "Location") == "http://circle.invalid/b")
        #expect(second.data == Data("moved".utf8))
        #expect(transport.exchanges == 1)
    }
}
