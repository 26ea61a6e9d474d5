import Foundation

/// Canned responses for an app's own tests, served through a `URLProtocol` so that everything
/// else — validation, hooks, retries, monitors, downloads — runs exactly as for real responses.
///
/// ```swift
/// let stubs = StubRegistry()
/// stubs.stub(.get, "https://api.example.com/weather", .json(#"{"data": {"city": "rome"}}"#))
/// stubs.stub(.get, "https://api.example.com/flaky", [.failure(.timedOut), .json("{}")])  // in turn
/// let session = Session(stubs: stubs)
/// let weather = try await session.request(WeatherForm(city: "rome")).decode(Weather.self, atKeyPath: "data")
/// ```
///
/// A stubbed session never touches the network: a request no stub matches fails with
/// `URLError(.resourceUnavailable)`. Stubs are matched newest first.
public final class StubRegistry: Sendable {
    private struct Entry: Sendable {
        let matches: @Sendable (URLRequest) -> Bool
        let respond: @Sendable (URLRequest) -> StubResponse
    }

    private struct State {
        var entries: [Entry] = []
        var requests: [URLRequest] = []
    }

    /// Identifies the registry to the protocol (sent as a request header by stubbed sessions).
    let id = UUID().uuidString
    private let state = Protected(State())

    /// Creates an empty registry.
    public init() {
        StubURLProtocol.register(self)
    }

    deinit {
        StubURLProtocol.unregister(id)
    }

    /// Answers requests that `matches` accepts with whatever `respond` returns.
    /// - Parameters:
    ///   - matches: Chooses the requests.
    ///   - respond: Makes the response for a request.
    public func stub(
        where matches: @escaping @Sendable (URLRequest) -> Bool,
        respond: @escaping @Sendable (URLRequest) -> StubResponse
    ) {
        state.withLock { $0.entries.insert(Entry(matches: matches, respond: respond), at: 0) }
    }

    /// Answers `method url` with the given responses in turn; the last one repeats.
    ///
    /// The URL matches when scheme, host, port and path are equal; a query in `url` must match
    /// too, otherwise any query is accepted. `url` is read like a form's URL text (spaces and
    /// non-ASCII characters are percent-encoded), so it matches what the form sends.
    /// - Parameters:
    ///   - method: The method, or `nil` for any.
    ///   - url: The URL to answer.
    ///   - responses: The responses, in turn.
    public func stub(_ method: HTTPMethod?, _ url: String, _ responses: [StubResponse]) {
        guard !responses.isEmpty else { return }
        // The URL text as forms send it (see `URLText`), so `"…/a b"` matches on every platform.
        let target = URLComponents(
            string: (try? URLText.encoded(URLRequestBuilder.trimmingWhitespace(url))) ?? url)
        let served = Protected(0)
        stub(
            where: { request in
                if let method, request.httpMethod?.uppercased() != method.rawValue { return false }
                return Self.url(request.url, matches: target)
            },
            respond: { _ in
                let index = served.withLock { count -> Int in
                    defer { count += 1 }
                    return count
                }
                return responses[min(index, responses.count - 1)]
            })
    }

    /// Answers `method url` with one response, every time.
    /// - Parameters:
    ///   - method: The method, or `nil` for any.
    ///   - url: The URL to answer.
    ///   - response: The response.
    public func stub(_ method: HTTPMethod?, _ url: String, _ response: StubResponse) {
        stub(method, url, [response])
    }

    /// Every request the stubs received, in order.
    public var requests: [URLRequest] { state.withLock { $0.requests } }

    /// Removes every stub and every recorded request.
    public func reset() {
        state.withLock { $0 = State() }
    }

    /// The response for a request (recording it), or `nil` when no stub matches.
    func response(for request: URLRequest) -> StubResponse? {
        // The matchers are app code: they run outside the lock (one may read `requests`, or stub).
        let entries = state.withLock { state -> [Entry] in
            state.requests.append(request)
            return state.entries
        }
        return entries.first { $0.matches(request) }?.respond(request)
    }

    private static func url(_ url: URL?, matches target: URLComponents?) -> Bool {
        guard let url, let target, let actual = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return false
        }
        guard actual.scheme?.lowercased() == target.scheme?.lowercased(),
            actual.host?.lowercased() == target.host?.lowercased(), actual.port == target.port,
            actual.percentEncodedPath == target.percentEncodedPath
        else { return false }
        guard let query = target.percentEncodedQuery else { return true }
        return actual.percentEncodedQuery == query
    }
}

extension Session {
    /// A session whose requests are answered by `stubs` instead of the network.
    /// - Parameters:
    ///   - stubs: The canned responses.
    ///   - configuration: The session's defaults (validation, retrier, monitors...).
    public convenience init(stubs: StubRegistry, configuration: Configuration = Configuration()) {
        let urlConfiguration = URLSessionConfiguration.ephemeral
        urlConfiguration.protocolClasses = [StubURLProtocol.self]
        var configuration = configuration
        // Stubs answer through the built-in transport's URLSession (a `URLProtocol`), whatever
        // transport the configuration names.
        configuration.transport = URLSessionTransport(configuration: urlConfiguration)
        configuration.interceptors.adapters.append(
            Adapter { request in
                var request = request
                request.setValue(stubs.id, forHTTPHeaderField: StubURLProtocol.registryHeader)
                return request
            })
        self.init(configuration: configuration)
        ownsGivenTransport()  // made here for this session alone: invalidated with it
    }
}
