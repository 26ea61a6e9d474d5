import Foundation

extension Session {
    /// Defaults for every request of a session, in groups: what requests carry and accept, their
    /// ``Timeouts``, the ``Interceptors`` that adapt, retry and watch them, the ``Credentials`` that
    /// answer challenges, the HTTP ``cache``, and the ``transport`` that carries them.
    public struct Configuration: Sendable {
        // Requests ---------------------------------------------------------------------------
        /// The absolute http(s) URL that forms' relative URLs are resolved against, as RFC 3986
        /// section 5 says (a browser resolves links the same way). A form whose URL has a scheme
        /// (`https://…`) ignores it. Mind the trailing slash: against `https://api.example.com/v1/`,
        /// `users` is `…/v1/users`; against `https://api.example.com/v1` it is `…/users` (the last
        /// segment is replaced); `/users` is `https://api.example.com/users` against either.
        /// Defaults to `nil`: every form gives an absolute URL, and a relative one fails the request
        /// with ``NetworkError/Kind/invalidURL``.
        public var baseURL: String?
        /// Headers added to every request; a form's own headers win on a clash. Defaults to none.
        public var headers = HTTPHeaders()
        /// The `User-Agent` of requests that set none themselves (in ``headers``, the form's
        /// headers, or an adapter, which all win). Defaults to ``defaultUserAgent``, which names the
        /// app, the operating system and Formwork; `nil` leaves the header to the transport
        /// (corelibs URLSession on Linux then sends `<process> (unknown version) curl/<version>`).
        public var userAgent: String? = Configuration.defaultUserAgent
        /// The status codes accepted when a request sets none itself. Defaults to `200..<300`;
        /// `nil` turns default validation off.
        public var acceptableStatusCodes: Range<Int>? = 200..<300
        /// Whether requests follow the server's redirects (see ``RedirectPolicy``); a form's own
        /// ``Formable/redirectPolicy`` wins. Defaults to ``RedirectPolicy/follow``.
        public var redirectPolicy = RedirectPolicy.follow
        /// How long requests may wait and take.
        public var timeouts = Timeouts()
        /// Adapters, retriers and event monitors applied to every request of the session.
        public var interceptors = Interceptors()
        /// What answers the challenges of servers and proxies, and which headers carry credentials.
        public var credentials = Credentials()
        /// Whom the session's requests trust: pinned public keys, private roots and client
        /// certificates, per host (see ``TrustPolicy`` and the "Trusting servers" article).
        /// Defaults to `nil`: each transport's own evaluation (the system's roots), at no cost.
        /// A transport that cannot enforce a host's rules fails its requests before sending.
        public var trust: TrustPolicy?

        // Features ---------------------------------------------------------------------------
        /// Formwork's HTTP cache for the session's data requests (see ``HTTPCache`` and each
        /// form's ``Formable/cachePolicy``). Defaults to `nil`: nothing is cached.
        public var cache: HTTPCache?
        /// Whether identical GET and HEAD requests made while one is in flight share its network
        /// request (coalescing; see ``RequestFormable/coalescesRequests``). Defaults to `true`.
        public var coalescesRequests = true
        /// When set, downloads fetch the body in ranges of at most this many bytes, one after the
        /// other with `If-Range`. Defaults to `nil`: one request for the whole body (or, when
        /// resuming, the whole rest), which over a real link is as fast as a plain download, while
        /// every range would cost a round trip. Memory stays bounded either way: when writing to
        /// disk falls behind the network, the session slows the network down (see
        /// <doc:PlatformNotes>). Ranges remain as a fallback, e.g. for a proxy or server that cuts
        /// long responses; servers that ignore ranges simply send the whole body.
        public var downloadSegmentSize: Int64?

        // Transport --------------------------------------------------------------------------
        /// What carries the session's requests over the network (see ``Transport``). Defaults to
        /// `nil`: a ``URLSessionTransport`` the session makes for itself (with
        /// `URLSessionConfiguration.default`) and invalidates with itself, on every platform. Set a
        /// ``URLSessionTransport`` of your own for another `URLSessionConfiguration`; a transport
        /// you set belongs to you (the session only lets go of it when it ends).
        public var transport: (any Transport)?
        /// What opens the session's WebSockets (see ``WebSocketTransport``). Defaults to `nil`:
        /// over URLSession, `URLSessionWebSocketTask` on Apple platforms; on Linux, where corelibs
        /// URLSession cannot open WebSockets, and with another ``transport``, a socket then fails
        /// with ``NetworkError/Reason/webSocketsUnavailable`` until one is set.
        public var webSocketTransport: (any WebSocketTransport)?

        /// The default configuration.
        public init() {}
    }

    /// How long a session's requests may wait and take.
    public struct Timeouts: Sendable, Equatable {
        /// The idle timeout in seconds: an attempt fails when nothing arrives or leaves for this
        /// long, when its form sets none (see ``Formable/idleTimeout``; per attempt, precise to about
        /// 0.1 s). Defaults to 60.
        public var idle: TimeInterval = 60
        /// The most seconds a request may take in all (attempts and retry delays included),
        /// enforced by Formwork. A request's own ``Request/totalTimeout(_:)`` wins over it. Defaults to `nil`:
        /// no total limit, only the ``idle`` timeout.
        public var total: TimeInterval?

        /// Timeouts with the defaults: 60 seconds idle, no total limit.
        init(idle: TimeInterval = 60, total: TimeInterval? = nil) {
            self.idle = idle
            self.total = total
        }
    }

    /// What a session applies to every request it runs, before the request's own.
    public struct Interceptors: Sendable {
        /// Adapters applied to every request of the session, before the request's own.
        public var adapters: [any RequestAdapter] = []
        /// Retriers asked, in order, after a request's own retriers, about a failed attempt; the
        /// first that retries wins. Defaults to none: no retries.
        public var retriers: [any RequestRetrier] = []
        /// Monitors told about every request of the session (e.g. ``ConsoleLogger``).
        public var eventMonitors: [any EventMonitor] = []
    }

    /// What answers the challenges of servers and proxies, and which headers carry credentials.
    public struct Credentials: Sendable {
        /// Answers a server's HTTP Basic or Digest challenge (a `401` with `WWW-Authenticate`),
        /// once per request: if the server refuses it, the `401` is the outcome. Without one, the
        /// `401` is delivered as an ordinary response on every platform. Defaults to `nil`.
        public var server: PasswordCredential?
        /// Answers a proxy's HTTP Basic or Digest challenge (a `407`), once per request, like
        /// ``server``. Defaults to `nil`.
        public var proxy: PasswordCredential?
        /// Names (any letter case) of headers that carry credentials of your own, e.g.
        /// `X-Api-Key`. Like `Authorization`, `Proxy-Authorization` and `Cookie`, they are removed
        /// from a redirected request that leaves the origin (another scheme, host or port), and
        /// a response to a request that carries one is cached for that credential only. Defaults
        /// to none.
        public var sensitiveHeaders: Set<String> = []
    }
}
