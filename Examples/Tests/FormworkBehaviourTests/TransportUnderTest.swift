import AsyncHTTPClient
import FormworkAsyncHTTPClient

@testable import Formwork

/// The transport the integration suites run against here: the AsyncHTTPClient transport, for
/// every session whose configuration names none (the suites are the root package's own, compiled
/// again in this target through symbolic links: Integration/ and Support/).
enum TransportUnderTest {
    /// The transport's name, for reports.
    static let name = "AsyncHTTPClient"
    /// Whether the transport is corelibs URLSession: no. AsyncHTTPClient parses a status line
    /// without a reason phrase, and keeps the body of a 3xx without `Location`.
    static let isCorelibsURLSession = false
    /// Whether the transport applies `Set-Cookie` to a cookie storage of its own
    /// (AsyncHTTPClient has no cookie storage).
    static let storesCookies = false
    /// Whether every body byte read before a server cuts the connection reaches Formwork: not
    /// here. AsyncHTTPClient drops the body parts it had buffered when the connection fails, so
    /// a cut download keeps up to the cut, and the download suites check that its resume asks
    /// for exactly what was not kept.
    static let keepsEveryByteBeforeACut = false

    /// Evaluated once, before the suites' first request. The client allows as many connections
    /// to the demo server as the suites hold at once (streams and held requests keep theirs open,
    /// in parallel): corelibs URLSession limits nothing per host, and with AsyncHTTPClient's
    /// default of 8 the other requests would wait for a connection until they time out.
    static let installed: Bool = {
        var configuration = AsyncHTTPClientTransport.recommendedConfiguration
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 512
        let client = HTTPClient(
            eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        Session.transportForTesting.withLock { $0 = AsyncHTTPClientTransport(client: client) }
        return true
    }()
}
