import Foundation
import Testing

@testable import Formwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport reports a response head only for an HTTP response; a response that is not HTTP
/// (here from a `URLProtocol` of the built-in transport's `URLSession`) has none, and the request
/// fails with a clear error instead of a head made up for it.
@Suite("A response that is not HTTP")
struct NonHTTPResponseTests {
    @Test("fails the request as transport, badServerResponse, 'not an HTTP response', with its body")
    func notHTTP() async throws {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [PlainResponseProtocol.self]
        let session = Session { $0.transport = URLSessionTransport(configuration: configuration) }
        defer { session.invalidateAndCancel() }
        let request = Client().request(TestForm(url: "http://plain.invalid/x"), session: session)
        let error = try await #require(throws: NetworkError.self) { try await request.data() }
        #expect(error.kind == .transport)
        #expect((error.underlyingError as? URLError)?.code == .badServerResponse)
        #expect(error.failureReason.contains("not an HTTP response"))
        #expect(error.data == Data("plain".utf8))
        #expect(request.response == nil)
    }
}

/// Answers every request with a plain `URLResponse` (not an `HTTPURLResponse`) and a body.
private final class PlainResponseProtocol: URLProtocol {
    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        let body = Data("plain".utf8)
        let response = URLResponse(
            url: request.url!, mimeType: "text/plain", expectedContentLength: body.count,
            textEncodingName: nil)
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: body)
        client?.urlProtocolDidFinishLoading(self)
    }

    override func stopLoading() {}
}
