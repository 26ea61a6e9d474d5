/// What the `HTTPSProbe` helper prints: the body of a successful request, or the `NetworkError`.
public struct HTTPSProbeReport: Codable, Sendable, Equatable {
    /// The response body, when the request succeeded.
    public var body: String?
    /// `NetworkError.kind.name`, when it failed.
    public var errorKind: String?
    /// `NetworkError.urlErrorCode?.rawValue`.
    public var urlErrorCode: Int?
    /// `NetworkError.userMessage` with the English words and no code appended.
    public var userMessage: String?
    /// `NetworkError.failureReason`.
    public var failureReason: String?

    /// An empty report, filled in by the probe.
    public init() {}
}
