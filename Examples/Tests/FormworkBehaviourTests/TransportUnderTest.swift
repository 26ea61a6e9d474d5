import FormworkAsyncHTTPClient

@testable import Formwork

/// The transport the integration suites run against here: the AsyncHTTPClient transport, for
/// every session whose configuration names none (the suites are the root package's own, compiled
/// again in this target through symbolic links: Integration/ and Support/).
enum TransportUnderTest {
    /// The transport's name, for reports.
    static let name = "AsyncHTTPClient"

    /// Evaluated once, before the suites' first request.
    static let installed: Bool = {
        Session.transportForTesting.withLock { $0 = AsyncHTTPClientTransport() }
        return true
    }()
}
