@testable import Formwork

/// The transport the integration suites run against. This package's tests use the built-in
/// URLSession transport; the Examples package compiles the same suites against the
/// AsyncHTTPClient transport (Examples/Tests/FormworkBehaviourTests), with its own
/// `TransportUnderTest`.
enum TransportUnderTest {
    /// The transport's name, for reports.
    static let name = "URLSession"
    /// Whether the transport is corelibs URLSession (Linux), whose own limits some tests pin (a
    /// status line without a reason phrase, the body of a 3xx without `Location`).
    #if canImport(FoundationNetworking)
        static let isCorelibsURLSession = true
    #else
        static let isCorelibsURLSession = false
    #endif
    /// Whether the transport applies `Set-Cookie` to a cookie storage of its own
    /// (URLSession keeps `Set-Cookie` in `HTTPCookieStorage.shared`).
    static let storesCookies = true
    /// Whether every body byte read before a server cuts the connection reaches Formwork (the
    /// download suites then pin resumes to the exact byte of the cut).
    static let keepsEveryByteBeforeACut = true

    /// Evaluated once, before the suites' first request: nothing to install for the default.
    static let installed: Bool = {
        Session.transportForTesting.withLock { $0 = nil }
        return true
    }()
}
