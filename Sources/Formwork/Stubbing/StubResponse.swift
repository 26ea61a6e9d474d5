import Foundation

/// What a stub answers: a response (status, headers, body, after a delay) or a transport error.
public struct StubResponse: Sendable {
    // Set through the initialiser and the factories below; read by the stub protocol.
    /// The HTTP status.
    var statusCode: Int
    /// Response headers.
    var headers: [String: String]
    /// The body.
    var body: Data
    /// Seconds to wait before answering.
    var delay: TimeInterval
    /// When set, the request fails in transit with this error instead of answering.
    var error: URLError?
    /// When set, the body is delivered in chunks of this size (to exercise progress).
    var chunkSize: Int?

    /// Creates a stub response.
    /// - Parameters:
    ///   - statusCode: The HTTP status (default 200).
    ///   - headers: Response headers.
    ///   - body: The body.
    ///   - delay: Seconds to wait before answering.
    ///   - chunkSize: Deliver the body in chunks of this size.
    public init(
        statusCode: Int = 200, headers: [String: String] = [:], body: Data = Data(), delay: TimeInterval = 0,
        chunkSize: Int? = nil
    ) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.delay = delay
        self.chunkSize = chunkSize
    }

    /// A JSON body from text, with `Content-Type: application/json`.
    /// - Parameters:
    ///   - json: The JSON text.
    ///   - statusCode: The HTTP status.
    ///   - delay: Seconds to wait before answering.
    /// - Returns: The stub response.
    public static func json(_ json: String, statusCode: Int = 200, delay: TimeInterval = 0) -> StubResponse {
        StubResponse(
            statusCode: statusCode, headers: ["Content-Type": "application/json"], body: Data(json.utf8),
            delay: delay)
    }

    /// An encoded value as a JSON body.
    /// - Parameters:
    ///   - value: The value to encode.
    ///   - statusCode: The HTTP status.
    /// - Returns: The stub response.
    /// - Throws: The encoder's error.
    public static func json(encoding value: some Encodable, statusCode: Int = 200) throws -> StubResponse {
        StubResponse(
            statusCode: statusCode, headers: ["Content-Type": "application/json"],
            body: try JSONEncoder().encode(value))
    }

    /// A plain-text body.
    /// - Parameters:
    ///   - text: The text.
    ///   - statusCode: The HTTP status.
    /// - Returns: The stub response.
    public static func text(_ text: String, statusCode: Int = 200) -> StubResponse {
        StubResponse(
            statusCode: statusCode, headers: ["Content-Type": "text/plain; charset=utf-8"],
            body: Data(text.utf8))
    }

    /// A transport failure, e.g. `.failure(.notConnectedToInternet)`.
    /// - Parameters:
    ///   - code: The URLError code.
    ///   - delay: Seconds to wait before failing.
    /// - Returns: The stub response.
    public static func failure(_ code: URLError.Code, delay: TimeInterval = 0) -> StubResponse {
        var response = StubResponse(delay: delay)
        response.error = URLError(code)
        return response
    }
}
