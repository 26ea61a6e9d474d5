import Foundation

/// A request whose response body is kept in memory: what `request(_:)` returns.
///
/// Chain one line per concern; every method returns the request itself:
///
/// ```swift
/// request(WeatherForm(city: "shanghai"))
///     .validate(statusCode: 200..<300)
///     .responseDecodable(of: Weather.self, atKeyPath: "data") { response in
///         print(response.value as Any)
///     }
/// ```
///
/// Completion handlers run on the main actor, in the order chained — also when chained after the
/// request finished — once each time the request ends: once, after its retries, and again after
/// each reload. The async accessors (``data()``, ``string(encoding:)``,
/// ``decode(_:atKeyPath:decoder:)``) never go through the main actor, and cancelling the Swift
/// `Task` that awaits them cancels the request.
public final class DataRequest: Request, DataResponding, @unchecked Sendable {}  // adds no stored property

// MARK: - Completion handlers

/// A request whose response body comes back in memory: data and upload requests.
public protocol DataResponding: Request {}

extension DataResponding {
    /// Adds a chain link that serializes off the main actor, then runs `handler` on it.
    private func deliver<Value: Sendable>(
        _ serialize: @escaping @Sendable (RequestOutcome) -> Result<Value, NetworkError>,
        to handler: @escaping @MainActor @Sendable (DataResponse<Value>) -> Void
    ) -> Self {
        core.append { outcome in
            let response = DataResponse(outcome, result: serialize(outcome))
            await MainActor.run { handler(response) }
        }
        return self
    }

    /// Calls `completionHandler` with the raw outcome: the body as optional `Data`.
    /// - Parameter completionHandler: Runs on the main actor once the request ends.
    /// - Returns: The request.
    @discardableResult
    public func response(completionHandler: @escaping @MainActor @Sendable (DataResponse<Data?>) -> Void)
        -> Self
    {
        deliver(
            { outcome in outcome.error.map { .failure($0) } ?? .success(outcome.data) }, to: completionHandler
        )
    }

    /// Calls `completionHandler` with the body as `Data` (empty if there was none).
    /// - Parameter completionHandler: Runs on the main actor once the request ends.
    /// - Returns: The request.
    @discardableResult
    public func responseData(completionHandler: @escaping @MainActor @Sendable (DataResponse<Data>) -> Void)
        -> Self
    {
        deliver(ResponseSerialization.data, to: completionHandler)
    }

    /// Calls `completionHandler` with the body as text.
    /// - Parameters:
    ///   - encoding: The text encoding; `nil` uses the response's charset, else UTF-8.
    ///   - completionHandler: Runs on the main actor once the request ends.
    /// - Returns: The request.
    @discardableResult
    public func responseString(
        encoding: String.Encoding? = nil,
        completionHandler: @escaping @MainActor @Sendable (DataResponse<String>) -> Void
    ) -> Self {
        deliver({ ResponseSerialization.string($0, encoding: encoding) }, to: completionHandler)
    }

    /// Calls `completionHandler` with the JSON body, or the value at a key path in it, decoded.
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - keyPath: Where the value sits, e.g. `"data"` or `"data.list"`; `nil` for the whole body.
    ///   - decoder: The decoder to use.
    ///   - completionHandler: Runs on the main actor once the request ends.
    /// - Returns: The request.
    @discardableResult
    public func responseDecodable<T: Decodable & Sendable>(
        of type: T.Type = T.self,
        atKeyPath keyPath: String? = nil,
        decoder: JSONDecoder = JSONDecoder(),
        completionHandler: @escaping @MainActor @Sendable (DataResponse<T>) -> Void
    ) -> Self {
        deliver(
            { ResponseSerialization.decode(type, $0, keyPath: keyPath, decoder: decoder) },
            to: completionHandler)
    }
}

// MARK: - Async accessors

extension DataResponding {
    /// Waits for the request and returns its body.
    /// - Returns: The body (empty if there was none).
    /// - Throws: ``NetworkError``.
    public func data() async throws(NetworkError) -> Data {
        try ResponseSerialization.data(await core.outcome()).get()
    }

    /// Waits for the request and returns its body as text.
    /// - Parameter encoding: The text encoding; `nil` uses the response's charset, else UTF-8.
    /// - Returns: The body as text.
    /// - Throws: ``NetworkError``.
    public func string(encoding: String.Encoding? = nil) async throws(NetworkError) -> String {
        try ResponseSerialization.string(await core.outcome(), encoding: encoding).get()
    }

    /// Waits for the request and decodes its JSON body, or the value at a key path in it.
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - keyPath: Where the value sits, e.g. `"data.list"`; `nil` for the whole body.
    ///   - decoder: The decoder to use.
    /// - Returns: The decoded value.
    /// - Throws: ``NetworkError``.
    public func decode<T: Decodable & Sendable>(
        _ type: T.Type = T.self, atKeyPath keyPath: String? = nil, decoder: JSONDecoder = JSONDecoder()
    ) async throws(NetworkError) -> T {
        try ResponseSerialization.decode(type, await core.outcome(), keyPath: keyPath, decoder: decoder).get()
    }

    /// Waits for the request and returns the full response: request, HTTP response, body, result.
    /// - Returns: The response, whose `result` holds the body or the error.
    public func response() async -> DataResponse<Data> {
        let outcome = await core.outcome()
        return DataResponse(outcome, result: ResponseSerialization.data(outcome))
    }
}
