import Foundation

/// The last check of what an attempt sends, run once per attempt on the final `URLRequest`
/// (after the form, the session's headers, every adapter and authenticator), just before it is
/// handed to `URLSession`, and again on a redirected request before it is followed.
///
/// A request that fails it is never sent.
enum FinalRequestCheck {
    /// Checks the final request.
    ///
    /// Every header name must be an RFC 9110 token and no value may hold CR, LF, NUL or another
    /// control character (see ``HTTPHeader/validate()``): on Linux a CR/LF in a header *name* is
    /// written to the wire as it is, so a second, forged header line would reach the server.
    /// - Parameter request: The request about to be sent.
    /// - Throws: ``NetworkError`` of kind ``NetworkError/Kind/invalidHeader`` naming the header;
    ///   neither the error nor the request it keeps holds the rejected value.
    static func validate(_ request: URLRequest) throws(NetworkError) {
        do {
            try request.validateHeaders()
        } catch {
            throw NetworkError(
                .invalidHeader, failureReason: String(describing: error), underlyingError: error,
                request: request.removingInvalidHeaders())
        }
    }
}
