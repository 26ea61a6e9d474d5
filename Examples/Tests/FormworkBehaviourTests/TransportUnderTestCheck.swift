import FormworkAsyncHTTPClient
import FormworkTestSupport
import Testing

@testable import Formwork

/// Proves the suites of this target run on the AsyncHTTPClient transport, not on URLSession.
@Suite("The behaviour suite runs on the AsyncHTTPClient transport")
struct TransportUnderTestCheck {
    let client = Client()

    @Test("The default session and a new one send through AsyncHTTPClientTransport")
    func transportIsAsyncHTTPClient() async throws {
        #expect(Session.default.transport is AsyncHTTPClientTransport)
        let session = Session()
        let body = try await client.request(
            TestForm(url: try await DemoServer.url("/echo")), session: session
        )
        .data()
        #expect(!body.isEmpty)
        #expect(session.transport is AsyncHTTPClientTransport)
        #expect(session.urlSessionTransport == nil)
    }
}
