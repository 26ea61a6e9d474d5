import Foundation

// The flat names of `Session.Configuration` before its groups, kept for one release.
extension Session.Configuration {
    /// The idle timeout in seconds.
    @available(*, deprecated, renamed: "timeouts.idle")
    public var timeout: TimeInterval {
        get { timeouts.idle }
        set { timeouts.idle = newValue }
    }

    /// The most seconds a request may take in all.
    @available(*, deprecated, renamed: "timeouts.total")
    public var deadline: TimeInterval? {
        get { timeouts.total }
        set { timeouts.total = newValue }
    }

    /// Adapters applied to every request of the session.
    @available(*, deprecated, renamed: "interceptors.adapters")
    public var adapters: [any RequestAdapter] {
        get { interceptors.adapters }
        set { interceptors.adapters = newValue }
    }

    /// The retrier asked after a request's own retriers (setting it replaces
    /// ``Session/Interceptors/retriers`` with it).
    @available(*, deprecated, message: "Use interceptors.retriers, a list asked in order.")
    public var retrier: (any RequestRetrier)? {
        get {
            guard !interceptors.retriers.isEmpty else { return nil }
            return interceptors.retriers.count == 1
                ? interceptors.retriers[0] : RetrierChain(interceptors.retriers)
        }
        set { interceptors.retriers = newValue.map { [$0] } ?? [] }
    }

    /// Monitors told about every request of the session.
    @available(*, deprecated, renamed: "interceptors.eventMonitors")
    public var eventMonitors: [any EventMonitor] {
        get { interceptors.eventMonitors }
        set { interceptors.eventMonitors = newValue }
    }

    /// Answers a server's challenge.
    @available(*, deprecated, renamed: "credentials.server")
    public var credential: PasswordCredential? {
        get { credentials.server }
        set { credentials.server = newValue }
    }

    /// Answers a proxy's challenge.
    @available(*, deprecated, renamed: "credentials.proxy")
    public var proxyCredential: PasswordCredential? {
        get { credentials.proxy }
        set { credentials.proxy = newValue }
    }

    /// Names of headers that carry credentials of your own.
    @available(*, deprecated, renamed: "credentials.sensitiveHeaders")
    public var sensitiveHeaders: Set<String> {
        get { credentials.sensitiveHeaders }
        set { credentials.sensitiveHeaders = newValue }
    }
}
