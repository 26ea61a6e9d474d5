import Foundation

/// Everything one attempt of a request ended with, before any serialization.
struct RequestOutcome: Sendable {
    /// The request that was sent, if it got that far.
    let request: URLRequest?
    /// The HTTP response, if one arrived.
    let response: HTTPURLResponse?
    /// The body received (possibly partial on failure).
    let data: Data?
    /// Why the attempt failed, or `nil` if transport and validation succeeded.
    let error: NetworkError?
    /// Which attempt this was (1 for the first).
    let attempt: Int
    /// Seconds from the start of the request to this outcome.
    let duration: TimeInterval
}

/// What a request delivers to a completion handler: what was sent, what came back, and the
/// serialized result.
public struct DataResponse<Success: Sendable>: Sendable {
    /// The request that was sent, if it got that far.
    public let request: URLRequest?
    /// The HTTP response, if one arrived.
    public let response: HTTPURLResponse?
    /// The raw body, if one arrived.
    public let data: Data?
    /// The value, or the ``NetworkError`` that prevented it.
    public let result: Result<Success, NetworkError>
    /// Seconds from the start of the request until it finished (all attempts included).
    public let duration: TimeInterval

    /// Creates a response (Formwork creates these; tests and stubs may too).
    /// - Parameters:
    ///   - request: The request sent.
    ///   - response: The HTTP response.
    ///   - data: The body.
    ///   - result: The serialized result.
    ///   - duration: How long the request took.
    public init(
        request: URLRequest?, response: HTTPURLResponse?, data: Data?,
        result: Result<Success, NetworkError>, duration: TimeInterval
    ) {
        self.request = request
        self.response = response
        self.data = data
        self.result = result
        self.duration = duration
    }

    init(_ outcome: RequestOutcome, result: Result<Success, NetworkError>) {
        self.init(
            request: outcome.request, response: outcome.response, data: outcome.data,
            result: result, duration: outcome.duration)
    }

    /// The value on success, else `nil`.
    public var value: Success? { try? result.get() }

    /// The error on failure, else `nil`.
    public var error: NetworkError? {
        guard case .failure(let error) = result else { return nil }
        return error
    }
}
