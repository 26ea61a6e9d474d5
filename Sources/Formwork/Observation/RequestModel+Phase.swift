@available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
extension RequestModel {
    /// Where a ``RequestModel``'s request stands.
    public enum Phase: Sendable {
        /// Nothing sent yet, or the request was cancelled.
        case idle
        /// The request runs (the first attempt, a retry or a reload).
        case loading
        /// The request succeeded with this value.
        case succeeded(Value)
        /// The request failed; ``NetworkError/userMessage`` says why in words for people.
        case failed(NetworkError)

        /// `true` while the request runs.
        public var isLoading: Bool {
            if case .loading = self { return true }
            return false
        }

        /// The value of a success, else `nil`.
        public var value: Value? {
            if case .succeeded(let value) = self { return value }
            return nil
        }

        /// The error of a failure, else `nil`.
        public var error: NetworkError? {
            if case .failed(let error) = self { return error }
            return nil
        }
    }
}
