import AsyncHTTPClient
import Formwork
import Foundation
import Testing

@testable import FormworkAsyncHTTPClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The requests the transport keeps for requests without a body sent again.
@Suite("AsyncHTTPClient transport: requests sent again")
struct HopRequestsTests {
    private func key(_ path: String, method: String = "GET", fields: [String: String] = [:]) throws
        -> HopRequests.Key
    {
        HopRequests.Key(
            url: try #require(URL(string: "http://127.0.0.1:1" + path)), method: method, fields: fields)
    }

    private func request(for key: HopRequests.Key) throws -> HTTPClient.Request {
        try HTTPClient.Request(url: key.url, method: .init(rawValue: key.method))
    }

    @Test("Only the same URL, method and fields find the request made before")
    func sameKeyOnly() throws {
        let memo = HopRequests()
        let first = try key("/a", fields: ["User-Agent": "x"])
        memo.remember(try request(for: first), for: first)
        #expect(memo.request(for: try key("/a", fields: ["User-Agent": "x"]))?.url == first.url)
        #expect(memo.request(for: try key("/a", fields: ["User-Agent": "y"])) == nil)
        #expect(memo.request(for: try key("/a", fields: [:])) == nil)
        #expect(memo.request(for: try key("/a", method: "HEAD", fields: ["User-Agent": "x"])) == nil)
        #expect(memo.request(for: try key("/a?b=1", fields: ["User-Agent": "x"])) == nil)
    }

    @Test("At most the capacity is kept, the oldest replaced first")
    func bounded() throws {
        let memo = HopRequests()
        let keys = try (0...HopRequests.capacity).map { try key("/\($0)") }
        for key in keys { memo.remember(try request(for: key), for: key) }
        #expect(memo.request(for: keys[0]) == nil)
        for key in keys.dropFirst() { #expect(memo.request(for: key)?.url == key.url) }
    }

    @Test("The same URL sent again with other fields or another method arrives as sent")
    func sentAgainArrivesAsSent() async throws {
        let transport = AsyncHTTPClientTransport()
        var sent: [(method: String, value: String?)] = []
        for (method, value) in [
            ("GET", "one"), ("GET", "one"), ("GET", "two"), ("GET", nil), ("DELETE", "two"),
        ] {
            var request = try serverRequest("/echo?n=1", method: method)
            request.setValue(value, forHTTPHeaderField: "X-Formwork")
            let events = try await exchange(TransportRequest(urlRequest: request), transport: transport)
            #expect(events.finishError == nil)
            let echo = try json(events.body)
            sent.append(
                (echo["method"] as? String ?? "?", (echo["headers"] as? [String: String])?["x-formwork"]))
        }
        #expect(sent.map(\.method) == ["GET", "GET", "GET", "GET", "DELETE"])
        #expect(sent.map(\.value) == ["one", "one", "two", nil, "two"])
        // The request of the first exchange is kept for the next one like it.
        let url = try Server.url("/echo?n=1")
        #expect(
            transport.hopRequests.request(for: .init(url: url, method: "GET", fields: ["X-Formwork": "one"]))
                != nil)
    }
}
