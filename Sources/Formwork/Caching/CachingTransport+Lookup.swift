import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The cache layer's lookup, when an exchange's task is resumed (see `CachingTask`).
extension CachingTransport {
    /// An answer of the cache to an exchange.
    struct Answer: Sendable {
        /// The stored response delivered; nil (`cacheOnly` with nothing stored): the exchange
        /// fails with `URLError.resourceUnavailable`.
        var entry: CacheEntry?
        /// How it is delivered.
        var delivery: CacheDelivery
    }

    /// Looks an exchange up in the cache. Answers it when the stored response may be used (also a
    /// stale one within `stale-while-revalidate`, revalidated in the background); else adds
    /// conditional fields to `request` to revalidate a stored response (kept in the context's
    /// `stored`), or leaves it as it is. A request with conditions of its own is answered only from
    /// a fresh stored response (a `304` when they hold, see ``CacheAnswer``), and otherwise sent as
    /// it is; a `Range` is answered from a stored complete response with a `206`; with
    /// `only-if-cached`, a request that would reach the server gets the cache's `504` instead.
    /// - Parameter asksServer: See ``CacheUse/asksServer``.
    /// - Returns: The cache's answer, or nil when the exchange goes on to the transport.
    func lookUp(_ context: inout CacheContext, request: inout URLRequest, asksServer: Bool) async -> Answer? {
        guard let policy = context.policy else { return nil }
        context.requestTime = Date()
        if context.method == "HEAD" {
            return await lookUpHead(&context, request: request, policy: policy)
        }
        // A stored partial response counts only for a `Range` within it.
        let headers = context.requestHeaders
        let stored = await cache.entry(for: context.key, request: headers).flatMap {
            $0.statusCode != 206 || CachePartial.answers($0, request: headers) ? $0 : nil
        }
        let now = Date()
        var decision = CacheDecision.lookup(stored, request: headers, policy: policy, now: now)
        if asksServer, let entry = stored {
            decision = .revalidate(entry, conditionalFields: CacheRevalidation.conditionalFields(for: entry))
        }
        let conditions = stored.map { CacheAnswer.conditions($0, request: headers) } ?? .none
        let answer = await follow(
            decision, conditions: conditions, context: &context, request: &request, now: now)
        guard answer == nil, CacheControl(headers["Cache-Control"]).has("only-if-cached") else {
            return answer
        }
        // `only-if-cached`: what would go to the server is answered with the cache's 504.
        let timeout = CacheAnswer.gatewayTimeout(url: context.url, now: now)
        return Answer(entry: timeout, delivery: Self.delivery(of: timeout, source: .cache, now: now))
    }

    /// A `HEAD` request is answered from a fresh stored `GET` response (its fields, no body; a
    /// `304` when the request's own conditions hold); else it is sent as it is, and its `200`
    /// freshens the stored response (see ``CacheDecision/settle(_:now:)``).
    private func lookUpHead(_ context: inout CacheContext, request: URLRequest, policy: CachePolicy) async
        -> Answer?
    {
        let headers = context.requestHeaders
        let stored = await cache.entry(for: context.key, request: headers).flatMap {
            $0.statusCode == 206 ? nil : $0
        }
        let now = Date()
        let answers = policy != .cacheThenNetwork && policy != .reloadIgnoringCache
        if answers,
            case .fresh(let entry) = CacheDecision.lookup(stored, request: headers, policy: policy, now: now)
        {
            switch CacheAnswer.conditions(entry, request: headers) {
            case .sendOn: break
            case .notModified:
                return answer(CacheAnswer.notModified(entry), now: now)
            case .none, .modified:
                var head = CacheAnswer.unvalidated(entry)
                head.body = Data()
                return answer(head, now: now)
            }
        }
        if policy == .cacheOnly {
            return Answer(entry: nil, delivery: .network)
        }
        if CacheControl(headers["Cache-Control"]).has("only-if-cached") {
            return answer(CacheAnswer.gatewayTimeout(url: context.url, now: now), now: now)
        }
        context.stored = stored
        return nil
    }

    /// Carries out a lookup decision (see ``lookUp(_:request:asksServer:)``).
    private func follow(
        _ decision: CacheDecision.Lookup, conditions: CacheAnswer.Conditions, context: inout CacheContext,
        request: inout URLRequest, now: Date
    ) async -> Answer? {
        let headers = context.requestHeaders
        switch decision {
        case .fresh(let entry):
            switch conditions {
            case .sendOn: return nil
            case .notModified: return answer(CacheAnswer.notModified(entry), now: now)
            case .none, .modified:
                return answer(CacheAnswer.ranged(CacheAnswer.unvalidated(entry), request: headers), now: now)
            }
        case .staleWhileRevalidate(let entry):
            guard conditions == .none else { return nil }
            // Claimed before the stale answer is delivered (once this lookup returns): a request
            // that follows finds the revalidation running. The claim reads the stored response
            // again (from disk for a large one) so that a hit that looked up an entry a
            // revalidation has refreshed meanwhile starts no second one.
            await revalidateInBackground(entry, request: request, key: context.key, trust: context.trust)
            return answer(CacheAnswer.ranged(CacheAnswer.unvalidated(entry), request: headers), now: now)
        case .revalidate(let entry, let fields):
            // The app's own conditions go to the server as they are: its answer is the app's.
            guard conditions == .none else { return nil }
            context.stored = entry
            for field in fields { request.setValue(field.value, forHTTPHeaderField: field.name) }
            return nil
        case .miss:
            guard context.policy == .cacheOnly else { return nil }
            return Answer(entry: nil, delivery: .network)
        }
    }

    /// The cache's answer with `entry`.
    private func answer(_ entry: CacheEntry, now: Date) -> Answer {
        Answer(entry: entry, delivery: Self.delivery(of: entry, source: .cache, now: now))
    }

    /// Revalidates a stale stored response in the background (`stale-while-revalidate`): one
    /// conditional request per key at a time, whose answer (a `304` or a new response) updates
    /// the cache, and none once `entry` is no longer the stored response (see
    /// ``HTTPCache/beginRevalidation(_:of:request:)``). Nothing is delivered to the request: it was
    /// answered already.
    private func revalidateInBackground(
        _ entry: CacheEntry, request: URLRequest, key: CacheKey, trust: TrustEvaluator?
    ) async {
        let lookedUp = HTTPHeaders(request.allHTTPHeaderFields ?? [:])
        guard await cache.beginRevalidation(key, of: entry, request: lookedUp) else { return }
        var unconditional = request
        if entry.statusCode != 206 {
            // The complete stored response is revalidated, not the range this request asked for.
            unconditional.setValue(nil, forHTTPHeaderField: "Range")
        }
        var conditional = unconditional
        for field in CacheRevalidation.conditionalFields(for: entry) {
            conditional.setValue(field.value, forHTTPHeaderField: field.name)
        }
        let requestHeaders = HTTPHeaders(unconditional.allHTTPHeaderFields ?? [:])
        let requestTime = Date()
        let cache = self.cache
        let events = RevalidationEvents(rules: rules) { data, head, error in
            // Released after the answer is stored: a claim that follows reads that answer.
            defer { cache.endRevalidation(key) }
            let failed = error != nil || head == nil
            let exchange = CacheDecision.Exchange(
                method: "GET", url: entry.url, requestHeaders: requestHeaders,
                hasCredentials: key.credential != nil,
                stored: entry, requestTime: requestTime, statusCode: failed ? nil : head?.statusCode,
                responseHeaders: head?.joinedHeaders ?? [:], body: data,
                transportFailed: failed)
            switch CacheDecision.settle(exchange, now: Date()) {
            case .store(let fresh), .revalidated(let fresh): cache.store(fresh, for: key)
            case .pass, .serveStale, .invalidate: break
            }
        }
        var revalidation = TransportRequest(urlRequest: conditional, isObserved: false)
        revalidation.trust = trust
        let task = base.makeTask(for: revalidation, events: events)
        task.resume()
    }
}
