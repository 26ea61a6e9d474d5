import Foundation
import Testing

@testable import Formwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A response head reported as parts (``TransportResponseHead``) reads like the `HTTPURLResponse`
/// it stands for, and becomes one only when asked, once.
@Suite("Response heads")
struct ResponseHeadTests {
    private let url = URL(string: "http://127.0.0.1/head")!

    private func parts(_ fields: [(String, String)], status: Int = 200) -> TransportResponseHead {
        TransportResponseHead(
            url: url, statusCode: status, headerFields: fields.map { HTTPHeader(name: $0.0, value: $0.1) })
    }

    @Test("A field is found in any letter case; a repeated field's values are joined with \", \"")
    func fieldLookup() {
        let head = parts([("Cache-Control", "no-store"), ("set-cookie", "a=1"), ("Set-Cookie", "b=2")])
        #expect(head.value(forHTTPHeaderField: "cache-control") == "no-store")
        #expect(head.value(forHTTPHeaderField: "SET-COOKIE") == "a=1, b=2")
        #expect(head.value(forHTTPHeaderField: "Content-Type") == nil)
    }

    @Test("Its HTTPURLResponse has every field once, repeats joined under the first spelling")
    func madeResponse() throws {
        let head = parts(
            [("content-type", "application/json"), ("X-Trace", "1"), ("x-trace", "2")], status: 201)
        let response = try #require(head.httpURLResponse())
        #expect(response.statusCode == 201)
        #expect(response.url == url)
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(response.value(forHTTPHeaderField: "x-trace") == "1, 2")
        #expect(response.allHeaderFields.count == 2)
        #expect(response.mimeType == "application/json")
    }

    @Test("The engine's head reads status, fields and length without making a response; made once")
    func lazyHead() throws {
        let head = ResponseHead(parts([("Content-Length", " 42 "), ("ETag", "\"v1\"")], status: 304))
        #expect(head.statusCode == 304)
        #expect(head.value(forHTTPHeaderField: "etag") == "\"v1\"")
        #expect(head.expectedContentLength == 42)
        #expect(head.headers["etag"] == "\"v1\"")
        let first = try #require(head.httpURLResponse)
        let second = try #require(head.httpURLResponse)
        #expect(first === second)  // every reader sees the same object
        #expect(first.statusCode == 304)
    }

    @Test(
        "Without a valid Content-Length the length is unknown (-1)", arguments: [nil, "", "-3", "12x", "1 2"])
    func unknownLength(value: String?) {
        let fields = value.map { [("Content-Length", $0)] } ?? []
        #expect(ResponseHead(parts(fields)).expectedContentLength == -1)
    }

    @Test("A head that is an HTTPURLResponse already gives that response back")
    func madeAlready() throws {
        let response = try #require(
            HTTPURLResponse(
                url: url, statusCode: 404, httpVersion: "HTTP/1.1", headerFields: ["Content-Length": "7"]))
        let head = ResponseHead(response)
        #expect(head.httpURLResponse === response)
        #expect(head.statusCode == 404)
        #expect(head.expectedContentLength == 7)
        #expect(head.value(forHTTPHeaderField: "content-length") == "7")
    }

    @Test("A transport's HTTPURLResponse is kept in its head: handed back as it is, read in place")
    func keptResponse() throws {
        let response = try #require(
            HTTPURLResponse(
                url: url, statusCode: 201, httpVersion: "HTTP/1.1",
                headerFields: ["Content-Length": "7", "ETag": "\"v2\""]))
        let head = TransportResponseHead(response)
        #expect(head.httpURLResponse() === response)
        #expect(head.url == url)
        #expect(head.statusCode == 201)
        #expect(head.value(forHTTPHeaderField: "etag") == "\"v2\"")
        #expect(head.joinedHeaders["content-length"] == "7")
        #expect(Set(head.headerFields.map { $0.name.lowercased() }) == ["content-length", "etag"])
        let engine = ResponseHead(head)
        #expect(engine.httpURLResponse === response)  // the engine takes it as it is, no parts
        #expect(engine.expectedContentLength == 7)
    }

    @Test("Changing a kept response's head lets go of the response: the change is what is made")
    func changedKeptResponse() throws {
        let response = try #require(
            HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["ETag": "a"]))
        var head = TransportResponseHead(response)
        head.statusCode = 203
        let made = try #require(head.httpURLResponse())
        #expect(made !== response)
        #expect(made.statusCode == 203)
        #expect(made.value(forHTTPHeaderField: "ETag") == "a")  // the fields were kept
        var fields = TransportResponseHead(response)
        fields.headerFields.append(HTTPHeader(name: "X-Added", value: "1"))
        #expect(fields.httpURLResponse() !== response)
        #expect(fields.value(forHTTPHeaderField: "etag") == "a")
        #expect(fields.value(forHTTPHeaderField: "x-added") == "1")
    }
}

/// Records the heads reported to it.
private final class HeadRecorder: TransportEvents, @unchecked Sendable {  // only used on one thread
    let accepts: Bool
    var heads: [TransportResponseHead] = []

    init(accepts: Bool) { self.accepts = accepts }

    func receiveResponseHead(_ head: TransportResponseHead) -> Bool {
        heads.append(head)
        return accepts
    }
    func receiveBody(_ body: Data) {}
    func sent(totalBytes: Int64, expectedBytes: Int64?) {}
    func redirect(_ response: HTTPURLResponse, to request: URLRequest) -> URLRequest? { request }
    func credential(isProxy: Bool, previousFailures: Int) -> PasswordCredential? { nil }
    func finish(_ error: (any Error)?) {}
}
