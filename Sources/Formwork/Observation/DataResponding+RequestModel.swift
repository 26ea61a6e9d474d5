import Foundation

@available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
extension DataResponding {
    /// Binds a ``RequestModel`` to the request, for SwiftUI: loading now, then the decoded body
    /// (or the error and its message) when the request ends, and on every retry or reload again.
    ///
    /// ```swift
    /// request(WeatherForm(city: "shanghai")).bind(to: weather, atKeyPath: "data")
    /// ```
    ///
    /// The model takes the request over at once (phase ``RequestModel/Phase/loading``); the
    /// body is decoded off the main actor like `responseDecodable(of:atKeyPath:decoder:)`, with the
    /// same key path (the whole body by default), and the model changes on the main actor in chain
    /// order with the other hooks and handlers. ``RequestModel/reload()`` re-sends this request.
    /// - Parameters:
    ///   - model: The model to bind; the request holds it weakly.
    ///   - keyPath: Where the value sits, e.g. `"data"` or `"data.list"`; `nil` (the default) for
    ///     the whole body.
    ///   - decoder: The decoder to use.
    ///   - tracksProgress: `true` to report the transfer's progress in
    ///     ``RequestModel/fractionCompleted`` (coalesced like ``Request/progress(_:)``). Leave it
    ///     `false` for small JSON calls: a request nothing watches takes URLSession's faster path.
    /// - Returns: The request.
    @MainActor
    @discardableResult
    public func bind<Value: Decodable & Sendable>(
        to model: RequestModel<Value>, atKeyPath keyPath: String? = nil, decoder: JSONDecoder = JSONDecoder(),
        tracksProgress: Bool = false
    ) -> Self {
        driveModel(model, tracksProgress: tracksProgress) { outcome in
            ResponseSerialization.decode(Value.self, outcome, keyPath: keyPath, decoder: decoder)
        }
    }

    /// Binds a ``RequestModel`` to the value inside the response's ``Envelope``: a code that is
    /// not a success code fails the model with a ``NetworkError/Kind/business`` error, and its
    /// ``RequestModel/message`` is the server's message.
    ///
    /// ```swift
    /// request(ArticlesForm()).bindEnvelope(to: articles, atKeyPath: "data.list", envelope: .api)
    /// ```
    ///
    /// It takes the key path and the envelope in the same order and with the same defaults as
    /// ``responseEnvelope(of:atKeyPath:envelope:decoder:completionHandler:)`` and
    /// ``decodeEnvelope(_:atKeyPath:envelope:decoder:)``.
    /// - Parameters:
    ///   - model: The model to bind; the request holds it weakly.
    ///   - keyPath: Where the value sits, e.g. `"data"` (the default) or `"data.list"`; `nil` for
    ///     the whole body. Ignored for `EmptyBody`.
    ///   - envelope: Where the code and message sit and which codes mean success;
    ///     ``Envelope/standard`` by default.
    ///   - decoder: The decoder to use.
    ///   - tracksProgress: `true` to report the transfer's progress (see
    ///     ``bind(to:atKeyPath:decoder:tracksProgress:)``).
    /// - Returns: The request.
    @MainActor
    @discardableResult
    public func bindEnvelope<Value: Decodable & Sendable>(
        to model: RequestModel<Value>, atKeyPath keyPath: String? = "data", envelope: Envelope = .standard,
        decoder: JSONDecoder = JSONDecoder(), tracksProgress: Bool = false
    ) -> Self {
        driveModel(model, tracksProgress: tracksProgress) { outcome in
            envelope.decode(Value.self, outcome, keyPath: keyPath, decoder: decoder)
        }
    }
}
