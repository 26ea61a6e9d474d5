import Foundation

/// What Foundation shows of a ``NetworkError``: `localizedDescription` is ``NetworkError/userMessage``
/// (the words of ``MessageCatalog/current``), on every platform, so an alert or a log line that
/// prints `error.localizedDescription` says what happened instead of "The operation could not be
/// completed". `localizedFailureReason` (and `LocalizedError.failureReason`) is the technical
/// ``NetworkError/failureReason``.
extension NetworkError: LocalizedError {
    /// ``userMessage``: a short sentence for a person, from ``MessageCatalog/current``.
    public var errorDescription: String? { userMessage }
}

extension LocalizedError where Self == NetworkError {
    /// The technical ``NetworkError/failureReason``, as `LocalizedError` reads it.
    ///
    /// The same text wherever it is read: `error.failureReason` is the non-optional `String`, and
    /// where an optional is expected (`error?.failureReason ?? ""`, an `NSError`'s
    /// `localizedFailureReason`) this property gives the same text rather than Foundation's
    /// default `nil`.
    public var failureReason: String? { (self as NetworkError).failureReason as String }
}
