import Foundation

/// Everything one attempt of a request ended with, before any serialization.
struct RequestOutcome: Sendable {
    /// The request that was sent, if it got that far.
    let request: URLRequest?
    /// The HTTP response head, if one arrived.
    let head: ResponseHead?
    /// The body received (possibly partial on failure).
    let data: Data?
    /// Why the attempt failed, or `nil` if transport and validation succeeded.
    let error: NetworkError?
    /// Which attempt this was (1 for the first).
    let attempt: Int
    /// Seconds from the start of the request to this outcome.
    let duration: TimeInterval
    /// Where the response came from (network, HTTP cache).
    var cache = CacheDelivery.network
    /// Whether the attempt was a background refresh (cache-then-network's second answer), which
    /// UI hooks neither begin nor end.
    var isBackgroundRefresh = false

    /// The HTTP response, if one arrived (made from the head when first asked for).
    var response: HTTPURLResponse? { head?.httpURLResponse }
}

extension RequestOutcome {
    /// An outcome whose response is an `HTTPURLResponse` already.
    init(
        request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: NetworkError?, attempt: Int,
        duration: TimeInterval
    ) {
        self.init(
            request: request, head: response.map(ResponseHead.init), data: data, error: error,
            attempt: attempt,
            duration: duration)
    }
}

/// What a request delivers to a completion handler: what was sent, what came back, and the
/// serialized result.
public struct DataResponse<Success: Sendable>: Sendable {
    /// The request that was sent, if it got that far.
    public let request: URLRequest?
    /// The HTTP response, if one arrived.
    public var response: HTTPURLResponse? { head?.httpURLResponse }
    /// The response head (its `HTTPURLResponse` is made when `response` is first read).
    private let head: ResponseHead?
    /// The raw body, if one arrived.
    public let data: Data?
    /// The value, or the ``NetworkError`` that prevented it.
    public let result: Result<Success, NetworkError>
    /// Seconds from the start of the request until it finished (all attempts included).
    public let duration: TimeInterval
    /// Where the response came from: the network, Formwork's ``HTTPCache``, or the cache after
    /// the server confirmed it (`304`).
    public let source: ResponseSource
    /// For a response from the cache: its age in seconds (RFC 9111 §4.2.3), also sent as its
    /// `Age` field. `nil` for a response from the network.
    public let age: TimeInterval?
    /// Whether a stale stored response was served: within `stale-while-revalidate` (while it is
    /// revalidated in the background) or `stale-if-error` (the server failed).
    public let isStale: Bool

    /// Creates a response (Formwork creates these; tests and stubs may too).
    /// - Parameters:
    ///   - request: The request sent.
    ///   - response: The HTTP response.
    ///   - data: The body.
    ///   - result: The serialized result.
    ///   - duration: How long the request took.
    ///   - source: Where the response came from; defaults to the network.
    ///   - age: The stored response's age, for a response from the cache.
    ///   - isStale: Whether a stale stored response was served.
    public init(
        request: URLRequest?, response: HTTPURLResponse?, data: Data?,
        result: Result<Success, NetworkError>, duration: TimeInterval, source: ResponseSource = .network,
        age: TimeInterval? = nil, isStale: Bool = false
    ) {
        self.request = request
        self.head = response.map(ResponseHead.init)
        self.data = data
        self.result = result
        self.duration = duration
        self.source = source
        self.age = age
        self.isStale = isStale
    }

    init(_ outcome: RequestOutcome, result: Result<Success, NetworkError>) {
        self.request = outcome.request
        self.head = outcome.head
        self.data = outcome.data
        self.result = result
        self.duration = outcome.duration
        self.source = outcome.cache.source
        self.age = outcome.cache.age
        self.isStale = outcome.cache.isStale
    }

    /// The value on success, else `nil`.
    public var value: Success? { try? result.get() }

    /// The error on failure, else `nil`.
    public var error: NetworkError? {
        guard case .failure(let error) = result else { return nil }
        return error
    }
}
