import Foundation
import Testing

@testable import Formwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("Coalescing key")
struct CoalescingKeyTests {
    private func request(
        _ url: String = "http://127.0.0.1/items?page=2", method: String = "GET",
        headers: [(String, String)] = []
    ) throws -> URLRequest {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.httpMethod = method
        for (name, value) in headers { request.addValue(value, forHTTPHeaderField: name) }
        return request
    }

    @Test("Header order and the letter case of header names do not matter")
    func headerOrderAndCase() throws {
        let first = try request(headers: [("Accept", "application/json"), ("X-Token", "abc")])
        let second = try request(headers: [("x-token", "abc"), ("ACCEPT", "application/json")])
        #expect(CoalescingKey(first) != nil)
        #expect(CoalescingKey(first) == CoalescingKey(second))
    }

    @Test("The W3C trace context fields are not part of the key; other headers still are")
    func traceContext() throws {
        let first = try request(headers: [
            ("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"),
            ("tracestate", "a=1"), ("Baggage", "k=v"),
        ])
        let second = try request(headers: [
            ("Traceparent", "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01")
        ])
        #expect(CoalescingKey(first) != nil)
        #expect(CoalescingKey(first) == CoalescingKey(second))
        #expect(CoalescingKey(first) == CoalescingKey(try request()))
        #expect(CoalescingKey(first) != CoalescingKey(try request(headers: [("X-Trace", "1")])))
    }

    @Test("Two requests whose forms ask for different HTTP cache policies never share a key")
    func formCachePolicy() throws {
        let plain = try request()
        #expect(
            CoalescingKey(plain, formCachePolicy: .useProtocol)
                == CoalescingKey(plain, formCachePolicy: .useProtocol))
        #expect(
            CoalescingKey(plain, formCachePolicy: .useProtocol)
                != CoalescingKey(plain, formCachePolicy: .reloadIgnoringCache))
        #expect(CoalescingKey(plain, formCachePolicy: .cacheOnly) != CoalescingKey(plain))
    }

    @Test("A header value's letter case matters")
    func headerValueCase() throws {
        #expect(
            CoalescingKey(try request(headers: [("X-Token", "abc")]))
                != CoalescingKey(try request(headers: [("X-Token", "ABC")])))
    }

    @Test(
        "Anything that can change the answer makes another key",
        arguments: ["url", "query", "header", "extra header", "method", "cache policy", "timeout", "cookies"])
    func differences(change: String) throws {
        let base = try request(headers: [("Accept", "application/json")])
        var other = base
        switch change {
        case "url": other.url = URL(string: "http://127.0.0.1/other?page=2")
        case "query": other.url = URL(string: "http://127.0.0.1/items?page=3")
        case "header": other.setValue("text/plain", forHTTPHeaderField: "Accept")
        case "extra header": other.setValue("1", forHTTPHeaderField: "X-Extra")
        case "method": other.httpMethod = "HEAD"
        case "cache policy": other.cachePolicy = .reloadIgnoringLocalCacheData
        case "timeout": other.timeoutInterval = base.timeoutInterval + 1
        default: other.httpShouldHandleCookies = !base.httpShouldHandleCookies
        }
        let baseKey = try #require(CoalescingKey(base))
        let otherKey = try #require(CoalescingKey(other))
        #expect(baseKey != otherKey)
    }

    @Test("The method is compared in upper case")
    func methodCase() throws {
        #expect(CoalescingKey(try request(method: "get")) == CoalescingKey(try request(method: "GET")))
    }

    @Test("Only GET and HEAD have a key", arguments: ["POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
    func otherMethods(method: String) throws {
        #expect(CoalescingKey(try request(method: method)) == nil)
    }

    @Test("A GET with a body or a body stream has no key")
    func bodies() throws {
        var withBody = try request()
        withBody.httpBody = Data("x".utf8)
        #expect(CoalescingKey(withBody) == nil)
        var withStream = try request()
        withStream.httpBodyStream = InputStream(data: Data("x".utf8))
        #expect(CoalescingKey(withStream) == nil)
    }
}
