import Foundation

// The names the model hooks had before they were told apart from the loading mask's `load(_:)`:
// each forwards to its `bind` replacement, deprecated, for one release.

@available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
extension DataResponding {
    /// Binds a ``RequestModel`` to the request: the former name of
    /// ``bind(to:atKeyPath:decoder:tracksProgress:)``.
    /// - Parameters:
    ///   - model: The model to bind.
    ///   - keyPath: Where the value sits; `nil` for the whole body.
    ///   - decoder: The decoder to use.
    ///   - tracksProgress: `true` to report the transfer's progress.
    /// - Returns: The request.
    @available(
        *, deprecated, renamed: "bind(to:atKeyPath:decoder:tracksProgress:)",
        message: "load(_:) shows a loading mask; bind(to:) drives a model"
    )
    @MainActor
    @discardableResult
    public func load<Value: Decodable & Sendable>(
        _ model: RequestModel<Value>, atKeyPath keyPath: String? = nil, decoder: JSONDecoder = JSONDecoder(),
        tracksProgress: Bool = false
    ) -> Self {
        bind(to: model, atKeyPath: keyPath, decoder: decoder, tracksProgress: tracksProgress)
    }

    // No `renamed:`: its fix-it would swap the labels in place and leave the arguments in the
    // old order (`atKeyPath: .api, envelope: "data"`).
    /// Binds a ``RequestModel`` to the value inside an ``Envelope``: the former name of
    /// ``bindEnvelope(to:atKeyPath:envelope:decoder:tracksProgress:)``, which takes the key path
    /// before the envelope.
    /// - Parameters:
    ///   - model: The model to bind.
    ///   - envelope: Where the code and message sit and which codes mean success.
    ///   - keyPath: Where the value sits.
    ///   - decoder: The decoder to use.
    ///   - tracksProgress: `true` to report the transfer's progress.
    /// - Returns: The request.
    @available(
        *, deprecated,
        message:
            "use bindEnvelope(to:atKeyPath:envelope:), which takes the key path before the envelope, as responseEnvelope does"
    )
    @MainActor
    @discardableResult
    public func load<Value: Decodable & Sendable>(
        _ model: RequestModel<Value>, envelope: Envelope, atKeyPath keyPath: String? = "data",
        decoder: JSONDecoder = JSONDecoder(), tracksProgress: Bool = false
    ) -> Self {
        bindEnvelope(
            to: model, atKeyPath: keyPath, envelope: envelope, decoder: decoder,
            tracksProgress: tracksProgress)
    }
}

@available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
extension DownloadRequest {
    /// Binds a ``RequestModel`` to a download: the former name of ``bind(to:tracksProgress:)``.
    /// - Parameters:
    ///   - model: The model to bind.
    ///   - tracksProgress: `false` to leave ``RequestModel/fractionCompleted`` `nil`.
    /// - Returns: The request.
    @available(
        *, deprecated, renamed: "bind(to:tracksProgress:)",
        message: "load(_:) shows a loading mask; bind(to:) drives a model"
    )
    @MainActor
    @discardableResult
    public func load(_ model: RequestModel<URL>, tracksProgress: Bool = true) -> Self {
        bind(to: model, tracksProgress: tracksProgress)
    }
}

@available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
extension StreamRequest {
    /// Binds a ``RequestModel`` to server-sent events: the former name of `bind(to:)`.
    /// - Parameter model: The model to bind.
    /// - Returns: The request.
    @available(
        *, deprecated, renamed: "bind(to:)",
        message: "load(_:) shows a loading mask; bind(to:) drives a model"
    )
    @MainActor
    @discardableResult
    public func load(_ model: RequestModel<ServerSentEvent>) -> Self {
        bind(to: model)
    }

    /// Binds a ``RequestModel`` to JSON lines: the former name of
    /// ``bind(to:decoder:skippingInvalidLines:)``.
    /// - Parameters:
    ///   - model: The model to bind.
    ///   - decoder: The decoder to use.
    ///   - skippingInvalidLines: `true` to skip lines that do not decode.
    /// - Returns: The request.
    @available(
        *, deprecated, renamed: "bind(to:decoder:skippingInvalidLines:)",
        message: "load(_:) shows a loading mask; bind(to:) drives a model"
    )
    @MainActor
    @discardableResult
    public func load<Value: Decodable & Sendable>(
        _ model: RequestModel<Value>, decoder: JSONDecoder = JSONDecoder(), skippingInvalidLines: Bool = false
    ) -> Self {
        bind(to: model, decoder: decoder, skippingInvalidLines: skippingInvalidLines)
    }
}
