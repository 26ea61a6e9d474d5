import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The HTTP cache as a layer around the session's transport (under the engine, above
/// coalescing), in the transport's own shape. An exchange the engine marks with a ``CacheUse`` is
/// looked up in the ``HTTPCache`` when its task is resumed: the cache answers it (a stored
/// response, a `304` to the request's own conditions, a `206` from a stored complete response, the
/// `504` of `only-if-cached`), or it goes on to the transport, with conditional fields when a
/// stored response is revalidated; its end is settled with the cache (stored, a `304` turned into
/// the stored response it confirmed, a stale response served within `stale-if-error`, what is
/// stored for the URL dropped after an unsafe method). The engine sees each answer as a response
/// like any other, marked with its source (``CacheDelivery``). The rules are ``CacheDecision``'s.
struct CachingTransport: Transport {
    /// The session's rules for an exchange that belongs to no request (a background revalidation,
    /// which follows no redirect: a redirect is stored under its own URL like any response).
    struct ExchangeRules: Sendable {
        /// The credential that answers a challenge (nil: none).
        var credential: @Sendable (_ isProxy: Bool, _ previousFailures: Int) -> PasswordCredential?
    }

    /// The layers under this one (coalescing, then the transport).
    let base: any Transport
    /// The session's cache.
    let cache: HTTPCache
    /// Header fields that, like `Authorization`, make a response private to its credential.
    let sensitiveHeaders: Set<String>
    /// The rules of a background revalidation's exchange.
    let rules: ExchangeRules

    func makeTask(for request: TransportRequest, events: any TransportEvents) -> any TransportTask {
        guard let use = request.cacheUse, request.urlRequest.url != nil else {
            return base.makeTask(for: request, events: events)
        }
        let method = request.urlRequest.httpMethod ?? "GET"
        guard use.policy != nil, method == "GET" || method == "HEAD" else {
            // Never answered nor stored: only the success of an unsafe method matters to the
            // cache (it drops what is stored for the URL).
            guard !CacheDecision.safeMethods.contains(method) else {
                return base.makeTask(for: request, events: events)
            }
            let context = self.context(for: request.urlRequest, policy: nil)
            return base.makeTask(
                for: request, events: CacheSettlingEvents(events, context: context, cache: cache))
        }
        var context = self.context(for: request.urlRequest, policy: use.policy)
        context.trust = request.trust
        return CachingTask(request: request, events: events, context: context, layer: self)
    }

    func enforcesIdleTimeout(of seconds: TimeInterval) -> Bool {
        base.enforcesIdleTimeout(of: seconds)
    }

    /// What the cache knows about an exchange of `request` before its lookup.
    func context(for request: URLRequest, policy: CachePolicy?) -> CacheContext {
        let url = request.url?.absoluteString ?? ""
        let method = request.httpMethod ?? "GET"
        let headers = HTTPHeaders(request.allHTTPHeaderFields ?? [:])
        let credential = CacheStorability.credentialKey(headers, extraNames: sensitiveHeaders)
        return CacheContext(
            policy: policy, key: CacheKey(method: "GET", url: url, credential: credential), method: method,
            url: url, requestHeaders: headers)
    }

    /// How a stored response is delivered at `now`: its age, and whether it is stale.
    static func delivery(of entry: CacheEntry, source: ResponseSource, now: Date) -> CacheDelivery {
        let (lifetime, age) = CacheFreshness.assess(entry, now: now)
        return CacheDelivery(source: source, age: age, isStale: age >= lifetime)
    }
}
