import Foundation

/// Runs requests: the defaults every request starts from, and the ``Transport`` that carries them
/// (by default one `URLSession`).
///
/// Most apps use ``Session/default``. Make your own for other defaults:
///
/// ```swift
/// let api = Session { configuration in
///     configuration.headers = ["X-Client": "ios"]
///     configuration.timeouts.idle = 20
/// }
/// request(WeatherForm(city: "shanghai"), session: api)
/// ```
public final class Session: Sendable {
    /// The session `Requestable`'s methods use unless told otherwise.
    public static let `default` = Session()

    /// This session's defaults.
    public let configuration: Configuration
    /// The requests this session's forms built lately (see ``RequestMemo``).
    let memo = RequestMemo()
    /// What the request engine reads of ``configuration`` (see ``RequestHost``).
    let settings: EngineSettings
    /// What carries the requests: ``Configuration/transport``, or a ``URLSessionTransport`` of the
    /// session's own. Chosen when the first request needs it (see `transportChoice`).
    var transport: any Transport {
        enum Found {
            case chosen(any Transport)
            case needsOwn(URLSessionConfiguration)
        }
        let found = transportChoice.withLock { choice -> Found in
            if let chosen = choice.transport { return .chosen(chosen) }
            if choice.isReleased { return .chosen(InvalidatedTransport()) }
            if let given = configuration.transport ?? Self.transportForTesting.withLock({ $0 }) {
                choice.transport = given
                return .chosen(given)
            }
            return .needsOwn(choice.urlSessionConfiguration)
        }
        switch found {
        case .chosen(let transport):
            return transport
        case .needsOwn(let urlSessionConfiguration):
            // Made outside the lock (it makes a URLSession); kept unless another request's first
            // attempt kept one meanwhile (this one then goes, and invalidates its URLSession).
            let own = URLSessionTransport(configuration: urlSessionConfiguration)
            return transportChoice.withLock { choice -> any Transport in
                if let chosen = choice.transport { return chosen }
                if choice.isReleased { return InvalidatedTransport() }
                choice.transport = own
                choice.ownsTransport = true
                return own
            }
        }
    }

    /// The built-in URLSession transport, when the session uses it.
    var urlSessionTransport: URLSessionTransport? { transport as? URLSessionTransport }

    /// How a session comes by its transport.
    struct TransportChoice {
        /// The transport once chosen.
        var transport: (any Transport)?
        /// The configuration of the ``URLSessionTransport`` the session makes for itself when its
        /// configuration names no transport.
        var urlSessionConfiguration: URLSessionConfiguration
        /// Whether the transport is the session's own (it made it): released, its `URLSession` is
        /// invalidated at once. A transport the app gave belongs to the app, which may share it.
        var ownsTransport = false
        /// Whether the transport was let go (after an invalidation: it is never made again).
        var isReleased = false
        /// The transport with the session's feature layers around it, assembled once with the
        /// transport (see ``Session/layeredTransport``).
        var layered: (any Transport)?
    }

    /// The transport once chosen, and how (see ``TransportChoice``).
    private let transportChoice: Protected<TransportChoice>
    /// The requests the session runs, and whether it was invalidated (see `Session+Lifetime.swift`).
    let lifetime = Protected(Lifetime())
    /// The transport of sessions whose configuration names none, for Formwork's behaviour suite
    /// (which runs against every transport): nil, the built-in URLSession transport, in apps.
    static let transportForTesting = Protected<(any Transport)?>(nil)
    /// The coalescable network requests in flight.
    let coalescer = Coalescer()
    /// What the engine hands every attempt's exchange to: the features that are layers around the
    /// transport, only those the session uses (the HTTP cache when it has one, then coalescing
    /// when it is on, or else the report of each start to the event monitors when there are
    /// any), then the transport. Assembled once, when the transport is chosen.
    var layeredTransport: any Transport {
        if let layered = transportChoice.withLock({ $0.layered }) { return layered }
        // Assembled outside the lock, as the transport is chosen; kept while the session keeps
        // its transport (a released session's layers are made again, around the stand-in).
        let layered = layers(around: transport)
        return transportChoice.withLock { choice in
            if let kept = choice.layered { return kept }
            if choice.transport != nil, !choice.isReleased { choice.layered = layered }
            return layered
        }
    }

    /// The session's feature layers around `transport`.
    private func layers(around transport: any Transport) -> any Transport {
        // The coalescing layer reports what each exchange sends to the event monitors; without
        // it, a layer that does only that, when there are monitors.
        let base: any Transport =
            if configuration.coalescesRequests {
                CoalescingTransport(base: transport, coalescer: coalescer)
            } else if !settings.eventMonitors.isEmpty {
                StartReportingTransport(base: transport)
            } else {
                transport
            }
        guard let cache = configuration.cache else { return base }
        let settings = self.settings
        let rules = CachingTransport.ExchangeRules(
            credential: { isProxy, previousFailures in
                settings.credential(isProxy: isProxy, previousFailures: previousFailures)
            })
        return CachingTransport(
            base: base, cache: cache, sensitiveHeaders: settings.sensitiveHeaders, rules: rules)
    }

    /// Creates a session.
    ///
    /// Its requests go over ``Configuration/transport``; when that is `nil` (the default), over a
    /// ``URLSessionTransport`` the session makes for itself with `URLSessionConfiguration.default`,
    /// which it invalidates when it is invalidated or dropped. For a `URLSessionConfiguration` of
    /// your own, set ``Configuration/transport`` to a ``URLSessionTransport`` made with it.
    /// - Parameter configuration: Defaults for every request, and the transport.
    public convenience init(configuration: Configuration = Configuration()) {
        self.init(configuration: configuration, ownURLSessionConfiguration: .default)
    }

    /// Creates a session that makes a ``URLSessionTransport`` for itself with
    /// `ownURLSessionConfiguration` when `configuration` names no transport.
    init(configuration: Configuration, ownURLSessionConfiguration: URLSessionConfiguration) {
        self.configuration = configuration
        self.settings = EngineSettings(configuration)
        self.transportChoice = Protected(
            TransportChoice(
                urlSessionConfiguration: URLSessionTransport.safeCopy(of: ownURLSessionConfiguration)))
    }

    /// Takes the transport `configuration` names as the session's own: released, it is
    /// invalidated at once (for a transport Formwork made for this session alone, e.g. stubs').
    func ownsGivenTransport() {
        transportChoice.withLock { $0.ownsTransport = true }
    }

    /// Lets go of the transport for good, once an invalidated session runs nothing any more: the
    /// session's own ``URLSessionTransport`` invalidates its `URLSession` (cancelling what is left,
    /// such as a background cache revalidation, when `cancelling`). A transport the app gave is
    /// only released: it belongs to the app, which may share it (a ``URLSessionTransport`` is
    /// invalidated once nothing refers to it).
    func releaseTransport(cancelling: Bool) {
        let released = transportChoice.withLock { choice -> (any Transport)? in
            defer {
                choice.transport = nil
                choice.layered = nil
                choice.isReleased = true
            }
            return choice.ownsTransport ? choice.transport : nil
        }
        guard let builtIn = released as? URLSessionTransport else { return }
        DeliveryQueue.countingWaitForNetwork {
            if cancelling {
                builtIn.urlSession.invalidateAndCancel()
            } else {
                builtIn.urlSession.finishTasksAndInvalidate()
            }
        }
    }

    /// Creates a session, changing the default configuration in a closure.
    /// - Parameter configure: Changes to the default configuration.
    public convenience init(_ configure: (inout Configuration) -> Void) {
        var configuration = Configuration()
        configure(&configuration)
        self.init(configuration: configuration)
    }

    /// Sends a form and returns the request, to chain hooks and handlers on.
    ///
    /// The form is read once, now, on the caller's actor (so it need not be `Sendable`); every
    /// attempt sends what was read. The request starts when the first handler, hook or async
    /// accessor is chained, or else once the caller's actor finishes the current statement, so
    /// adapters, validators and retriers chained on the same line all apply. Called from code with
    /// no actor (a `nonisolated` function), it starts only at the first handler, hook, async
    /// accessor or ``Request/resume()``.
    /// - Parameters:
    ///   - form: What to send.
    ///   - isolation: The caller's actor, filled in by the compiler.
    /// - Returns: The request.
    @discardableResult
    public func request(_ form: some RequestFormable, isolation: isolated (any Actor)? = #isolation)
        -> DataRequest
    {
        let request = makeDataRequest(form)
        request.core.scheduleStart()
        return request
    }

    /// A data request for `form` that has not started: whoever makes one starts it, e.g. with
    /// an async accessor (``Requestable/send(_:session:)`` does, saving the scheduled start's task).
    func makeDataRequest(_ form: some RequestFormable) -> DataRequest {
        // The form is read once, here on the caller's actor; only its Sendable snapshot goes into
        // the builder, with the session (whose configuration never changes: capturing it rather
        // than a copy of the configuration saves a copy and a teardown of its fields per request).
        let form = FormSnapshot(form)
        return DataRequest(
            core: RequestCore(
                host: self,
                build: .immediate { [self] _ in
                    let (request, headersChecked) = try URLRequestBuilder.request(
                        for: form, configuration: configuration, memo: memo)
                    return PreparedRequest(
                        urlRequest: request, coalesces: form.coalescesRequests && form.redirectPolicy == nil,
                        cache: CacheUse(policy: form.cachePolicy), redirectPolicy: form.redirectPolicy,
                        headersChecked: headersChecked)
                }
            ))
    }
}
