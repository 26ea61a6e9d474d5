import Foundation

extension DataResponding {
    /// Calls `completionHandler` with the value inside the response's envelope, or a
    /// ``NetworkError/Kind/business`` error when its code is not a success code.
    ///
    /// ```swift
    /// request(ArticlesForm()).responseEnvelope(of: [Article].self, atKeyPath: "data.list") { response in
    ///     switch response.result {
    ///     case .success(let articles): show(articles)
    ///     case .failure(let error): print(error.businessMessage ?? error.userMessage)
    ///     }
    /// }
    /// ```
    /// - Parameters:
    ///   - type: The type to decode; `EmptyBody` when only the code matters.
    ///   - keyPath: Where the value sits, e.g. `"data"` (the default) or `"data.list"`; `nil` for
    ///     the whole body. Ignored for `EmptyBody`.
    ///   - envelope: Where the code and message sit and which codes mean success.
    ///   - decoder: The decoder to use.
    ///   - completionHandler: Runs on the main actor once the request ends.
    /// - Returns: The request.
    @discardableResult
    public func responseEnvelope<T: Decodable & Sendable>(
        of type: T.Type = T.self,
        atKeyPath keyPath: String? = "data",
        envelope: Envelope = .standard,
        decoder: JSONDecoder = JSONDecoder(),
        completionHandler: @escaping @MainActor @Sendable (DataResponse<T>) -> Void
    ) -> Self {
        core.append { outcome in
            let response = DataResponse(
                outcome, result: envelope.decode(type, outcome, keyPath: keyPath, decoder: decoder))
            await MainActor.run { completionHandler(response) }
        }
        return self
    }

    /// Waits for the request and returns the value inside its envelope.
    /// - Parameters:
    ///   - type: The type to decode; `EmptyBody` when only the code matters.
    ///   - keyPath: Where the value sits, e.g. `"data"` (the default) or `"data.list"`; `nil` for
    ///     the whole body. Ignored for `EmptyBody`.
    ///   - envelope: Where the code and message sit and which codes mean success.
    ///   - decoder: The decoder to use.
    /// - Returns: The decoded value.
    /// - Throws: ``NetworkError``; kind ``NetworkError/Kind/business`` when the code is not a
    ///   success code (also for an error status whose body holds such a code).
    public func decodeEnvelope<T: Decodable & Sendable>(
        _ type: T.Type = T.self,
        atKeyPath keyPath: String? = "data",
        envelope: Envelope = .standard,
        decoder: JSONDecoder = JSONDecoder()
    ) async throws(NetworkError) -> T {
        try envelope.decode(type, await core.outcome(), keyPath: keyPath, decoder: decoder).get()
    }
}
