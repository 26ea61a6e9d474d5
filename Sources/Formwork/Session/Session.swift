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
    /// What the request engine reads of ``configuration`` (see ``RequestHost``).
    let settings: EngineSettings
    /// What carries the requests: ``Configuration/transport``, or the built-in URLSession one.
    /// Chosen when the first request needs it (see `transportChoice`).
    var transport: any Transport {
        transportChoice.withLock { choice in
            if let chosen = choice.transport { return chosen }
            if choice.isReleased { return InvalidatedTransport() }
            let chosen =
                configuration.transport ?? Self.transportForTesting.withLock { $0 }
                ?? URLSessionTransport(configuration: choice.urlSessionConfiguration)
            choice.transport = chosen
            return chosen
        }
    }
    /// Makes the built-in transport, on a `URLSession` of its own: what a session whose
    /// ``Configuration/transport`` is `nil` carries its requests on. Use it where a transport of
    /// yours wraps the default one (a decorator that logs or counts exchanges, see the
    /// Transports article); as with ``init(configuration:urlSessionConfiguration:)``, the
    /// `URLSession` gets a copy of `urlSessionConfiguration` with no `URLCache`.
    /// - Parameter urlSessionConfiguration: The configuration of the underlying `URLSession`
    ///   (copied; the copy's `urlCache` set to `nil`).
    /// - Returns: A new built-in transport.
    public static func builtInTransport(
        urlSessionConfiguration: URLSessionConfiguration = .default
    ) -> any Transport {
        URLSessionTransport(configuration: urlSessionConfiguration)
    }

    /// The built-in URLSession transport, when the session uses it.
    var urlSessionTransport: URLSessionTransport? { transport as? URLSessionTransport }
    /// The transport once chosen, what the built-in one is made with, and whether it was let go
    /// (after an invalidation: it is never made again).
    private let transportChoice:
        Protected<
            (transport: (any Transport)?, urlSessionConfiguration: URLSessionConfiguration, isReleased: Bool)
        >
    /// The requests the session runs, and whether it was invalidated (see `Session+Lifetime.swift`).
    let lifetime = Protected(Lifetime())
    /// The transport of sessions whose configuration names none, for Formwork's behaviour suite
    /// (which runs against every transport): nil, the built-in URLSession transport, in apps.
    static let transportForTesting = Protected<(any Transport)?>(nil)
    /// The coalescable network requests in flight.
    let coalescer = Coalescer()
    /// What the engine hands every attempt's exchange to: the features that are layers around the
    /// transport (the HTTP cache when the session has one, then coalescing), then the transport.
    var layeredTransport: any Transport {
        let coalescing = CoalescingTransport(base: transport, coalescer: coalescer)
        guard let cache = configuration.cache else { return coalescing }
        let settings = self.settings
        let rules = CachingTransport.ExchangeRules(
            redirect: { response, request in
                try? RedirectRule.follow(
                    response, to: request, hasBody: false, sensitiveHeaders: settings.sensitiveHeaders)
            },
            credential: { isProxy, previousFailures in
                settings.credential(isProxy: isProxy, previousFailures: previousFailures)
            })
        return CachingTransport(
            base: coalescing, cache: cache, sensitiveHeaders: settings.sensitiveHeaders, rules: rules)
    }

    /// Creates a session.
    ///
    /// With the built-in transport (no ``Configuration/transport``), the underlying `URLSession` gets a copy of `urlSessionConfiguration` with **no `URLCache`**
    /// (`urlCache = nil`), on every platform; the object you pass is not changed. On Linux,
    /// cancelling a request while corelibs URLSession looks it up in the cache can crash the whole
    /// process (`TaskRegistry.swift:118: Trying to access a behaviour for a task that in not in the
    /// registry`); without a cache that window does not exist. What an app gives up: on Apple
    /// platforms, `URLCache`'s storing and revalidation of cacheable responses (corelibs never
    /// stores a response anyway). Formwork's own ``HTTPCache`` (``Configuration/cache``) takes its place.
    /// - Parameters:
    ///   - configuration: Defaults for every request.
    ///   - urlSessionConfiguration: The configuration of the underlying `URLSession` (copied,
    ///     and the copy's `urlCache` set to `nil`); unused with another transport.
    public init(
        configuration: Configuration = Configuration(),
        urlSessionConfiguration: URLSessionConfiguration = .default
    ) {
        self.configuration = configuration
        self.settings = EngineSettings(configuration)
        self.transportChoice = Protected(
            (nil, URLSessionTransport.safeCopy(of: urlSessionConfiguration), false))
    }

    /// Lets go of the transport for good, once an invalidated session runs nothing any more: the
    /// built-in one invalidates its `URLSession` (cancelling what is left, such as a background
    /// cache revalidation, when `cancelling`). Another transport is only released: it belongs to
    /// the app, which may share it.
    func releaseTransport(cancelling: Bool) {
        let released = transportChoice.withLock { choice -> (any Transport)? in
            defer {
                choice.transport = nil
                choice.isReleased = true
            }
            return choice.transport
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
        // Read once, here on the caller's actor; only the Sendable snapshot goes into the builder.
        let (form, configuration) = (FormSnapshot(form), self.configuration)
        // The cache keys a response by the URL asked for, whichever hop answered: a request that
        // may stop at a redirect neither reads nor stores there (see `RedirectPolicy`).
        let cachePolicy =
            (form.redirectPolicy ?? configuration.redirectPolicy).followsAll ? form.cachePolicy : nil
        return DataRequest(
            core: RequestCore(
                host: self,
                builder: { _ in
                    PreparedRequest(
                        urlRequest: try URLRequestBuilder.request(for: form, configuration: configuration),
                        coalesces: form.coalescesRequests && form.redirectPolicy == nil,
                        cache: CacheUse(policy: cachePolicy), redirectPolicy: form.redirectPolicy)
                }
            ))
    }
}
