import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What carries Formwork's requests over the network.
///
/// Formwork decides everything about a request (building, adapters, authentication, retries,
/// redirects' credential rules, caching, coalescing, validation, decoding, hooks) and hands each
/// attempt to its session's transport as one exchange: a ``TransportRequest`` out, a response
/// head, body bytes and an end back through ``TransportEvents``. ``URLSessionTransport`` is the
/// built-in transport and the default on every platform; set ``Session/Configuration/transport``
/// to use another one (for example one built on SwiftNIO for a Linux service, see the Transports
/// article).
///
/// A transport:
/// - makes a task for an exchange without starting it and without calling its events (Formwork
///   calls ``makeTask(for:events:)`` on the request's path, holding no lock: the call must be
///   quick);
/// - once the task is resumed, reports the exchange through its events, in order, one call at a
///   time: at most one response head per response (``TransportEvents/receiveResponseHead(_:)``),
///   body bytes, and exactly one ``TransportEvents/finish(_:)``;
/// - asks its events before it follows a redirect and before it answers an authentication
///   challenge, so the same rules hold whatever carries the request;
/// - applies back-pressure: it reads no more of a body while a
///   ``TransportEvents/receiveBody(_:)`` call is in progress (Formwork may block in it while
///   it writes a download to disk; see ``TransportRequest/bodyMayBlock``).
public protocol Transport: Sendable {
    /// Makes the task that will carry one exchange; it starts when resumed.
    /// - Parameters:
    ///   - request: What to send.
    ///   - events: Where the exchange's events go once the task is resumed.
    /// - Returns: The task, not started.
    func makeTask(for request: TransportRequest, events: any TransportEvents) -> any TransportTask

    /// Whether the transport enforces an idle timeout of `seconds` (a request's
    /// `timeoutInterval`: the longest an exchange may go without a sign of life) exactly, by
    /// itself. Formwork watches every idle timeout its transport does not enforce. The default is
    /// `false`: Formwork watches them all.
    /// - Parameter seconds: The idle timeout, finite and above zero.
    /// - Returns: `true` when the transport fails an exchange idle for `seconds` by itself, as
    ///   `URLError.timedOut`.
    func enforcesIdleTimeout(of seconds: TimeInterval) -> Bool
}

extension Transport {
    /// Formwork watches every idle timeout of a transport that does not say otherwise.
    /// - Parameter seconds: The idle timeout.
    /// - Returns: `false`.
    public func enforcesIdleTimeout(of seconds: TimeInterval) -> Bool { false }
}

/// One exchange of a ``Transport``.
public protocol TransportTask: AnyObject, Sendable {
    /// Starts the exchange. Called once.
    func resume()

    /// Stops the exchange as soon as possible and releases what it holds. Formwork ignores every
    /// event of the task after it cancelled it, so reporting ``TransportEvents/finish(_:)`` then
    /// is allowed but not needed (the built-in transport reports nothing more). Calling it more
    /// than once, or after the end, does nothing.
    func cancel()
}
