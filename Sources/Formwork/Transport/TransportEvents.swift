import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where a ``Transport`` reports one exchange, and asks Formwork what its rules say.
///
/// Formwork gives each task its own events. A transport calls them one at a time, in the order
/// the exchange happens, and stops after ``finish(_:)``. They are cheap, except
/// ``receiveBody(_:)`` when ``TransportRequest/bodyMayBlock`` is set.
public protocol TransportEvents: Sendable {
    /// The response head arrived (after any redirects the transport followed). A transport that
    /// holds an `HTTPURLResponse` reports ``TransportResponseHead/init(_:)`` of it; one that reads
    /// the head off the wire reports its parts, and Formwork makes an `HTTPURLResponse` only if
    /// something asks for one (see ``TransportResponseHead``).
    ///
    /// A response that is not HTTP has no head: report none, and end the exchange with
    /// ``finish(_:)`` as usual; the request then fails with a ``NetworkError/Kind/transport``
    /// error, `badServerResponse`, saying the response was not an HTTP response.
    /// - Parameter head: The response head.
    /// - Returns: `true` to receive the body; `false` when Formwork wants no more of the
    ///   exchange: stop it as ``TransportTask/cancel()`` would.
    func receiveResponseHead(_ head: TransportResponseHead) -> Bool

    /// Bytes of the response body arrived, in order. Formwork may block in this call (a download
    /// writing to disk): read no more of the body until it returns.
    /// - Parameter body: The bytes.
    func receiveBody(_ body: Data)

    /// Bytes of the request body were sent.
    /// - Parameters:
    ///   - totalBytes: How many bytes of the body were sent so far in this exchange.
    ///   - expectedBytes: The body's length, if known.
    func sent(totalBytes: Int64, expectedBytes: Int64?)

    /// The server redirected the request: Formwork says whether and how to follow. On a hop to
    /// another origin, the request it returns carries no credential header; a `307` or `308` of
    /// a request with a body is not followed (the redirect is then the response).
    /// - Parameters:
    ///   - response: The redirect response.
    ///   - request: The request the transport would send next.
    /// - Returns: The request to send, or nil to take the redirect response as the response.
    func redirect(_ response: HTTPURLResponse, to request: URLRequest) -> URLRequest?

    /// The server asks for a user name and password (a `401`, or a `407` from a proxy):
    /// Formwork answers with the session's credential, once. Without an answer the challenge's
    /// response is the response.
    /// - Parameters:
    ///   - isProxy: Whether a proxy asks.
    ///   - previousFailures: How many answers to this challenge the server refused already.
    /// - Returns: The credential to answer with, or nil.
    func credential(isProxy: Bool, previousFailures: Int) -> PasswordCredential?

    /// The exchange ended: successfully when `error` is nil (the whole body was received), or
    /// with `error` (a `URLError` for transport failures; a ``NetworkError`` is used as it is).
    /// - Parameter error: Why it failed, if it did.
    func finish(_ error: (any Error)?)
}
