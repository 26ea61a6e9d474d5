import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What one exchange sends: the final request of an attempt, after adapters and Formwork's own
/// checks (no CR or LF in any header, a body only where the method allows one).
public struct TransportRequest: Sendable {
    /// How the body of a request travels.
    public enum Body: Sendable {
        /// No body.
        case none
        /// Bytes in memory.
        case data(Data)
        /// A file, read as it is sent (constant memory). Its length is known before sending.
        case file(URL)
        /// A stream of unknown length, sent as it is read (chunked). The factory makes a fresh
        /// stream with the same bytes each time it is called: a transport calls it once per send,
        /// and again whenever it must send the body again (a re-sent request). If it throws, the
        /// exchange ends with that error (``TransportEvents/finish(_:)``).
        case stream(@Sendable () throws -> InputStream)

        /// Whether there is a body to send.
        public var hasBody: Bool {
            switch self {
            case .none: return false
            case .data(let data): return !data.isEmpty
            case .file, .stream: return true
            }
        }
    }

    /// The request: method, URL, header fields, and `timeoutInterval` as the idle timeout (the
    /// longest wait for the next bytes). Its `httpBody` and `httpBodyStream` are nil: the body is
    /// ``body``.
    public var urlRequest: URLRequest
    /// The body.
    public var body: Body
    /// Whether anything watches the exchange as it moves (progress, event monitors, an idle
    /// timeout, a file or a stream being written). When `false`, a transport may deliver the
    /// response head, the whole body and the end together, once the response is complete.
    public var isObserved: Bool
    /// Whether ``TransportEvents/receiveBody(_:)`` may block for a while (the body goes to
    /// a file on disk, or to a stream's reader that fell behind). A transport that runs on an
    /// event loop must then call it elsewhere.
    public var bodyMayBlock: Bool
    /// Whom the exchange trusts, when the session has a ``TrustPolicy``: the rules for each host
    /// the transport connects to (the request's, and a redirect's), and the verdict on the chain
    /// each presents (see ``TrustEvaluator``). `nil`: the transport's own evaluation. A transport
    /// that cannot see server certificates must fail the exchange with
    /// ``TrustEvaluator/refusal(forHostWithoutEvaluation:transportName:appliesAnchorsAndIdentity:)``
    /// rather than ignore it.
    public var trust: TrustEvaluator?
    /// Whether ``TransportEvents/receiveBody(_:)`` may block for as long as an app's reader
    /// takes (a stream with ``StreamBufferPolicy/slowDown``), not only for a disk write. The
    /// built-in transport carries such an exchange on a `URLSession` of its own, so that its wait
    /// never holds the callbacks of the session's other requests.
    var waitsForReader = false
    /// Whether the exchange may be shared with identical requests in flight (coalescing; nil:
    /// never).
    var sharing: ExchangeSharing?
    /// How the HTTP cache layer may use the exchange (nil: it passes the request on untouched).
    var cacheUse: CacheUse?
    /// Told by Formwork's layers, once, what the exchange sends when it starts, or whose
    /// identical exchange it joins (the event monitors' `requestDidStart`/`requestDidCoalesce`);
    /// nil when nobody listens.
    var reportStart: (@Sendable (_ sent: URLRequest, _ sharingWith: UUID?) -> Void)?

    /// Creates the request of one exchange.
    /// - Parameters:
    ///   - urlRequest: The request (its body fields are ignored: pass the body as `body`).
    ///   - body: The body.
    ///   - isObserved: Whether anything watches the exchange as it moves.
    ///   - bodyMayBlock: Whether receiving body bytes may block.
    public init(
        urlRequest: URLRequest, body: Body = .none, isObserved: Bool = true, bodyMayBlock: Bool = false
    ) {
        var urlRequest = urlRequest
        // Only when set: on Linux each change copies the whole request.
        if urlRequest.httpBody != nil { urlRequest.httpBody = nil }
        if urlRequest.httpBodyStream != nil { urlRequest.httpBodyStream = nil }
        self.urlRequest = urlRequest
        self.body = body
        self.isObserved = isObserved
        self.bodyMayBlock = bodyMayBlock
    }
}
