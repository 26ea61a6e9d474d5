import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The two spellings of a session on a URLSession of a given configuration before
// `URLSessionTransport`, kept for one release.
extension Session {
    /// Creates a session whose own ``URLSessionTransport`` (when `configuration` names no
    /// transport) is made with `urlSessionConfiguration`, and invalidated with the session.
    /// - Parameters:
    ///   - configuration: Defaults for every request.
    ///   - urlSessionConfiguration: The configuration of the underlying `URLSession` (copied, and
    ///     the copy's `urlCache` set to `nil`); unused with another transport.
    @available(
        *, deprecated,
        message: "Set configuration.transport = URLSessionTransport(configuration: urlSessionConfiguration)"
    )
    public convenience init(
        configuration: Configuration = Configuration(), urlSessionConfiguration: URLSessionConfiguration
    ) {
        self.init(configuration: configuration, ownURLSessionConfiguration: urlSessionConfiguration)
    }

    /// Makes the built-in transport, on a `URLSession` of its own.
    /// - Parameter urlSessionConfiguration: The configuration of the underlying `URLSession`
    ///   (copied; the copy's `urlCache` set to `nil`).
    /// - Returns: A new ``URLSessionTransport``.
    @available(*, deprecated, renamed: "URLSessionTransport(configuration:)")
    public static func builtInTransport(
        urlSessionConfiguration: URLSessionConfiguration = .default
    ) -> any Transport {
        URLSessionTransport(configuration: urlSessionConfiguration)
    }
}
