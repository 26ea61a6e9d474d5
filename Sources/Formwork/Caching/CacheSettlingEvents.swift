import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The events of an exchange the cache layer sent on (see ``CachingTransport``): they pass on to
/// the request's, and at the end the exchange is settled with the cache: a storable response is
/// stored, what is stored for the URL is dropped after an unsafe method succeeded, and a response
/// the stored one replaces (a `304` that confirms it, a `5xx` or a failure within
/// `stale-if-error`) is held back and the stored response delivered instead.
final class CacheSettlingEvents: TransportEvents {
    /// What the exchange received.
    private struct Received {
        /// The response head, as the transport reported it.
        var head: TransportResponseHead?
        /// The body, when it is kept (to store it, or held back).
        var body = Data()
        /// Whether the head and body are held back until the end.
        var holdsBack = false
        /// Whether the body is kept: the response is held back, or may be stored.
        var keepsBody = false
    }

    private let target: any TransportEvents
    private let context: CacheContext
    private let cache: HTTPCache
    /// Whether a response may be stored at all (a `GET` whose form has a policy).
    private let mayStore: Bool
    private let received = Protected(Received())

    /// Events that pass on to `target` and settle the exchange described by `context`.
    init(_ target: any TransportEvents, context: CacheContext, cache: HTTPCache) {
        self.target = target
        self.context = context
        self.cache = cache
        mayStore = context.policy != nil && context.method == "GET"
    }

    /// Records the head; passes it on unless the stored response may take its place.
    func receiveResponseHead(_ head: TransportResponseHead) -> Bool {
        let keepsBody = mayStore && isStorable(head)
        let holdsBack = received.withLock { received -> Bool in
            received.head = head
            received.holdsBack = mayBeReplaced(statusCode: head.statusCode)
            received.keepsBody = keepsBody || received.holdsBack
            return received.holdsBack
        }
        if holdsBack { return true }
        return target.receiveResponseHead(head)
    }

    /// Whether a response with `statusCode` may be replaced by the stored response at the end:
    /// a `304` or a `5xx` to a `GET` that revalidates one.
    private func mayBeReplaced(statusCode: Int) -> Bool {
        guard context.stored != nil, context.method == "GET" else { return false }
        return statusCode == 304 || statusCode >= 500
    }

    /// Whether the cache could store this response (a body that cannot be stored is not kept).
    private func isStorable(_ head: TransportResponseHead) -> Bool {
        let status = head.statusCode
        return CacheStorability.canStore(
            method: context.method, requestHeaders: context.requestHeaders,
            hasCredentials: context.key.credential != nil, statusCode: status == 206 ? 200 : status,
            responseHeaders: head.joinedHeaders)
    }

    func receiveBody(_ body: Data) {
        let holdsBack = received.withLock { received -> Bool in
            if received.keepsBody { received.body.append(body) }
            return received.holdsBack
        }
        if !holdsBack { target.receiveBody(body) }
    }

    func sent(totalBytes: Int64, expectedBytes: Int64?) {
        target.sent(totalBytes: totalBytes, expectedBytes: expectedBytes)
    }

    func redirect(_ response: HTTPURLResponse, to request: URLRequest) -> URLRequest? {
        target.redirect(response, to: request)
    }

    func credential(isProxy: Bool, previousFailures: Int) -> PasswordCredential? {
        target.credential(isProxy: isProxy, previousFailures: previousFailures)
    }

    func finish(_ error: (any Error)?) {
        let received = self.received.withLock { $0 }
        // A cancel, or a chain the trust policy refused, is never answered from the cache.
        if let error = error as? URLError, error.code == .cancelled {
            target.finish(error)
            return
        }
        if let error = error as? NetworkError, error.kind == .serverTrust {
            target.finish(error)
            return
        }
        let status = error == nil ? received.head?.statusCode : nil
        let exchange = CacheDecision.Exchange(
            method: context.method, url: context.url, requestHeaders: context.requestHeaders,
            hasCredentials: context.key.credential != nil, stored: context.stored,
            requestTime: context.requestTime, statusCode: status,
            responseHeaders: received.head?.joinedHeaders ?? [:], body: received.body,
            transportFailed: status == nil)
        let now = Date()
        switch CacheDecision.settle(exchange, now: now) {
        case .pass:
            break
        case .invalidate(let urls):
            cache.invalidate(urls)
        case .store(let entry):
            if context.policy != nil { cache.store(entry, for: key) }
        case .revalidated(let entry):
            cache.store(entry, for: key)
            deliver(entry, source: .revalidated, now: now)
            return
        case .serveStale(let entry):
            // Only a response held back (or none) is replaced: one passed on already stands.
            if received.holdsBack || received.head == nil {
                deliver(entry, source: .cache, now: now)
                return
            }
        }
        if received.holdsBack, let head = received.head, target.receiveResponseHead(head),
            !received.body.isEmpty
        {
            target.receiveBody(received.body)
        }
        target.finish(error)
    }

    private var key: CacheKey { context.key }

    /// Delivers the stored response (the part a `Range` of the request asks for) in place of
    /// what the exchange received, and ends the exchange.
    private func deliver(_ stored: CacheEntry, source: ResponseSource, now: Date) {
        let delivery = CachingTransport.delivery(of: stored, source: source, now: now)
        let entry = CacheAnswer.ranged(stored, request: context.requestHeaders)
        if let head = CacheAnswerTask.head(of: entry, delivery: delivery), target.receiveResponseHead(head),
            !entry.body.isEmpty
        {
            target.receiveBody(entry.body)
        }
        target.finish(nil)
    }
}
