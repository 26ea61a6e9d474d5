import Foundation

/// The last check of what an attempt sends, run once per attempt on the final request (after the
/// form, the session's headers, every adapter and authenticator), just before it is handed to the
/// transport, and again on a redirected request before it is followed.
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
            throw refusal(error, request: request)
        }
    }

    /// Checks the request the adapters returned and turns it into the `URLRequest` to send.
    ///
    /// Its headers are checked as the adapters left them, in ``OutgoingRequest``'s own storage, so
    /// a value Foundation would drop on the way into a `URLRequest` (corelibs' `setValue` drops one
    /// with CR, LF or NUL) still fails the request, naming the header, on every platform.
    /// - Parameter request: The request after every adapter.
    /// - Returns: The `URLRequest` to send.
    /// - Throws: ``NetworkError`` of kind ``NetworkError/Kind/invalidHeader`` naming the header;
    ///   neither the error nor the request it keeps holds the rejected value.
    static func validate(_ request: OutgoingRequest) throws(NetworkError) -> URLRequest {
        do {
            try request.headers.validate()
        } catch {
            throw refusal(error, request: request.urlRequest)
        }
        return request.urlRequest
    }

    /// The error for a request refused for `error`, keeping the request without its invalid headers.
    private static func refusal(_ error: NetworkError, request: URLRequest) -> NetworkError {
        error.with(request: request.removingInvalidHeaders())
    }
}
