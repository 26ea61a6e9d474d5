import Foundation

/// What a request's engine needs from whoever runs it, the ``Session``: its settings, its transport
/// with the feature layers around it, and its count of running requests. The engine never names
/// the session: it sits below it.
protocol RequestHost: AnyObject, Sendable {
    /// The settings the engine reads, fixed when the session was made.
    var settings: EngineSettings { get }
    /// The transport with the features that are layers around it (see ``Transport``).
    var layeredTransport: any Transport { get }
    /// The transport itself (asked whether it enforces idle timeouts).
    var transport: any Transport { get }
    /// Counts `core` as running, or says why the host runs nothing new (it was invalidated).
    func admit(_ core: RequestCore) -> NetworkError?
    /// `core` ended: it no longer counts as running.
    func requestEnded(_ core: RequestCore)
}

/// The session's settings a request's engine reads (see `Session.Configuration`, which documents
/// each of them).
struct EngineSettings: Sendable {
    /// Adapters run on every attempt's request, before the request's own.
    var adapters: [any RequestAdapter] = []
    /// Asked in order about a failed attempt, after the request's own retriers.
    var retriers: [any RequestRetrier] = []
    /// Told what every request does.
    var eventMonitors: [any EventMonitor] = []
    /// The total time a request may take, unless it sets its own.
    var deadline: TimeInterval?
    /// The status codes a response is validated against when its request names none (nil: any).
    var acceptableStatusCodes: Range<Int>? = 200..<300
    /// Which redirects are followed, unless the form says otherwise.
    var redirectPolicy = RedirectPolicy.follow
    /// Header fields that, like `Authorization`, are dropped on a redirect to another origin.
    var sensitiveHeaders: Set<String> = []
    /// Whether identical requests in flight may share one network request.
    var coalescesRequests = true
    /// The credential that answers a server's challenge.
    var credential: PasswordCredential?
    /// The credential that answers a proxy's challenge.
    var proxyCredential: PasswordCredential?
    /// Whom requests trust (pins, anchors, client identities); nil: the transport's defaults.
    var trust: TrustPolicy?

    /// The credential that answers a challenge: the session's (or its proxy credential), once; a
    /// challenge that follows a failure of it gets none.
    func credential(isProxy: Bool, previousFailures: Int) -> PasswordCredential? {
        guard previousFailures == 0 else { return nil }
        return isProxy ? proxyCredential : credential
    }
}
