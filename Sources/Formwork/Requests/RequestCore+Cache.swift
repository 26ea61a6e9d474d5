import Foundation

// The HTTP cache in the engine: one lookup before an attempt's task is made (`run`), one
// settlement when its task ends (`taskDidComplete`). The rules are `CacheDecision`'s; a cached
// answer is the attempt's task (`CacheAnswerTask`), which delivers it as the network would, so
// validation, retries, hooks, decoding and monitors run unchanged, and the request state machine
// stays the one place of the request's rules.
extension RequestCore {
    /// Looks the attempt up in the session's cache, after adapters and checks, before a task is
    /// made. Answers it from the cache when the stored response may be used (also a stale one
    /// within `stale-while-revalidate`, revalidated in the background); else adds conditional
    /// fields to revalidate a stored response, or leaves the request as it is. A request with
    /// conditions of its own is answered only from a fresh stored response (a `304` when they
    /// hold, see ``CacheAnswer``), and otherwise sent as it is; a `Range` is answered from a
    /// stored complete response with a `206`; with `only-if-cached`, a request that would reach
    /// the server gets the cache's `504` instead.
    /// - Returns: `true` when the cache answers the attempt (see ``answer(_:with:now:)``).
    @discardableResult
    func answeredFromCache(_ prepared: inout PreparedRequest, attempt: Int) async -> Bool {
        guard let cache = session.configuration.cache, let url = prepared.urlRequest.url?.absoluteString
        else {
            return false
        }
        let previous = state.withLock { $0.machine.latest?.prepared.cache }
        var context = prepared.cache ?? CacheContext(policy: nil)
        context.method = prepared.urlRequest.httpMethod ?? "GET"
        context.url = url
        context.requestHeaders = HTTPHeaders(prepared.urlRequest.allHTTPHeaderFields ?? [:])
        context.requestTime = Date()
        let credential = CacheStorability.credentialKey(
            context.requestHeaders, extraNames: session.configuration.sensitiveHeaders)
        let key = CacheKey(method: "GET", url: url, credential: credential)
        context.key = key
        prepared.cache = context
        guard let policy = context.policy, context.method == "GET" || context.method == "HEAD" else {
            return false
        }
        if context.method == "HEAD" {
            return await answeredHead(&prepared, attempt: attempt, policy: policy, cache: cache)
        }
        // A stored partial response counts only for a `Range` within it.
        let stored = await cache.entry(for: key, request: context.requestHeaders).flatMap {
            $0.statusCode != 206 || CachePartial.answers($0, request: context.requestHeaders) ? $0 : nil
        }
        let now = Date()
        var decision = CacheDecision.lookup(stored, request: context.requestHeaders, policy: policy, now: now)
        if policy == .cacheThenNetwork, attempt > 1 {
            // The second delivery of cache-then-network: the network's answer (a 304 confirms).
            decision =
                stored.map {
                    .revalidate($0, conditionalFields: CacheRevalidation.conditionalFields(for: $0))
                }
                ?? .miss
        } else if attempt > 1, policy != .cacheOnly, previous?.answered == true,
            previous?.delivery.source == .cache, let entry = stored
        {
            // A retry of an attempt the cache answered (a stored 503 that failed validation):
            // asking the cache again would give the same answer, so the retry asks the server.
            decision = .revalidate(entry, conditionalFields: CacheRevalidation.conditionalFields(for: entry))
        }
        let conditions = stored.map { CacheAnswer.conditions($0, request: context.requestHeaders) } ?? .none
        let answered = await follow(
            decision, conditions: conditions, prepared: &prepared, attempt: attempt, policy: policy, now: now)
        guard !answered, CacheControl(context.requestHeaders["Cache-Control"]).has("only-if-cached") else {
            return answered
        }
        // `only-if-cached`: what would go to the server is answered with the cache's 504.
        answer(&prepared, with: CacheAnswer.gatewayTimeout(url: url, now: now), now: now)
        return true
    }

    /// A `HEAD` request is answered from a fresh stored `GET` response (its fields, no body; a
    /// `304` when the request's own conditions hold); else it is sent as it is, and its `200`
    /// freshens the stored response (see ``CacheDecision/settle(_:now:)``).
    private func answeredHead(
        _ prepared: inout PreparedRequest, attempt: Int, policy: CachePolicy, cache: HTTPCache
    ) async -> Bool {
        guard let request = prepared.cache?.requestHeaders, let key = prepared.cache?.key else {
            return false
        }
        let stored = await cache.entry(for: key, request: request).flatMap { $0.statusCode == 206 ? nil : $0 }
        let now = Date()
        let answers = policy != .cacheThenNetwork && policy != .reloadIgnoringCache
        if answers,
            case .fresh(let entry) = CacheDecision.lookup(stored, request: request, policy: policy, now: now)
        {
            switch CacheAnswer.conditions(entry, request: request) {
            case .sendOn: break
            case .notModified:
                answer(&prepared, with: CacheAnswer.notModified(entry), now: now)
                return true
            case .none, .modified:
                var head = CacheAnswer.unvalidated(entry)
                head.body = Data()
                answer(&prepared, with: head, now: now)
                return true
            }
        }
        if policy == .cacheOnly || CacheControl(request["Cache-Control"]).has("only-if-cached") {
            let timeout = prepared.urlRequest.url.map {
                CacheAnswer.gatewayTimeout(url: $0.absoluteString, now: now)
            }
            answer(&prepared, with: policy == .cacheOnly ? nil : timeout, now: now)
            return true
        }
        prepared.cache?.stored = stored
        return false
    }

    /// Carries out a lookup decision (see ``answeredFromCache(_:attempt:)``).
    /// - Returns: `true` when the cache answered the attempt.
    private func follow(
        _ decision: CacheDecision.Lookup, conditions: CacheAnswer.Conditions, prepared: inout PreparedRequest,
        attempt: Int, policy: CachePolicy, now: Date
    ) async -> Bool {
        let request = prepared.cache?.requestHeaders ?? [:]
        switch decision {
        case .fresh(let entry):
            switch conditions {
            case .sendOn: return false
            case .notModified:
                answer(&prepared, with: CacheAnswer.notModified(entry), now: now)
            case .none, .modified:
                let served = CacheAnswer.ranged(CacheAnswer.unvalidated(entry), request: request)
                answer(&prepared, with: served, now: now)
            }
            prepared.cache?.refreshesAfterAnswer = policy == .cacheThenNetwork
            return true
        case .staleWhileRevalidate(let entry):
            guard conditions == .none, let key = prepared.cache?.key, let cache = session.configuration.cache
            else { return false }
            let served = CacheAnswer.ranged(CacheAnswer.unvalidated(entry), request: request)
            answer(&prepared, with: served, now: now)
            // Claimed before the stale answer is delivered (by the attempt's cache task, once this
            // lookup returns): a request that follows finds the revalidation running. The claim
            // reads the stored response again (from disk for a large one) so that a hit that
            // looked up an entry a revalidation has refreshed meanwhile starts no second one.
            await revalidateInBackground(entry, request: prepared.urlRequest, key: key, cache: cache)
            return true
        case .revalidate(let entry, let fields):
            // The app's own conditions go to the server as they are: its answer is the app's.
            guard conditions == .none else { return false }
            prepared.cache?.stored = entry
            for field in fields { prepared.urlRequest.setValue(field.value, forHTTPHeaderField: field.name) }
            return false
        case .miss:
            guard policy == .cacheOnly else { return false }
            answer(&prepared, with: nil, now: now)
            return true
        }
    }

    /// Cache-then-network's second answer: once the cached answer of `attempt` is delivered, the
    /// request reloads in the background (no load mask: the cached value is on screen). Nothing
    /// happens when that answer was dropped (see ``dropsFailedCachedAnswer(attempt:)``) or the
    /// request was cancelled meanwhile.
    func refreshInBackground(after attempt: Int) {
        perform(
            state.withLock { state in
                guard state.machine.attempt == attempt else { return .none }
                return state.event { $0.reload(background: true) }
            })
    }

    /// Whether the failure of `attempt` is that of a cached answer of cache-then-network (it
    /// failed validation): such an answer is dropped like a miss, and the network's answer, from
    /// the next attempt at once, is the one delivered. The retriers are not asked: nothing failed
    /// on the network.
    func dropsFailedCachedAnswer(attempt: Int) -> Bool {
        state.withLock { state in
            guard state.machine.isRunning(attempt: attempt),
                let context = state.machine.latest?.prepared.cache
            else {
                return false
            }
            return context.answered && context.policy == .cacheThenNetwork
        }
    }

    /// Settles an attempt's end with the cache, before validation: stores a storable response,
    /// turns a `304` into the stored response it confirmed, serves the stored response instead
    /// of a failure within `stale-if-error`, and drops what is stored for the URL when an unsafe
    /// method succeeded.
    /// - Parameters:
    ///   - error: The task's error, if any.
    ///   - attempt: The attempt that ended.
    /// - Returns: The error the attempt ends with (`nil` when a stored response answers instead).
    func settleWithCache(_ error: (any Error)?, attempt: Int) -> (any Error)? {
        guard let cache = session.configuration.cache else { return error }
        if let error = error as? URLError, error.code == .cancelled { return error }
        let snapshot = state.withLock { state -> (CacheContext, ResponseHead?, Data)? in
            guard state.machine.isRunning(attempt: attempt), let values = state.machine.latest,
                let context = values.prepared.cache, context.key != nil, !context.answered
            else { return nil }
            return (context, values.response, values.body)
        }
        guard let (context, response, body) = snapshot, let key = context.key else { return error }
        let failed = error != nil || response == nil
        let exchange = CacheDecision.Exchange(
            method: context.method, url: context.url, requestHeaders: context.requestHeaders,
            hasCredentials: key.credential != nil, stored: context.stored, requestTime: context.requestTime,
            statusCode: failed ? nil : response?.statusCode,
            responseHeaders: response?.headers ?? [:], body: body,
            transportFailed: failed)
        let now = Date()
        switch CacheDecision.settle(exchange, now: now) {
        case .pass:
            return error
        case .invalidate(let urls):
            cache.invalidate(urls)
            return error
        case .store(let entry):
            if context.policy != nil { cache.store(entry, for: key) }
            return error
        case .revalidated(let entry):
            cache.store(entry, for: key)
            replaceResponse(with: entry, source: .revalidated, attempt: attempt, now: now)
            return nil
        case .serveStale(let entry):
            replaceResponse(with: entry, source: .cache, attempt: attempt, now: now)
            return nil
        }
    }

    /// Makes the cache the answer of the attempt: its task will be a ``CacheAnswerTask`` that
    /// delivers `entry` as the network would have (or, for `cacheOnly` with nothing stored,
    /// `entry` nil, fails with `URLError.resourceUnavailable`). A failed attempt before this one
    /// left nothing behind: each attempt's values start empty in the machine.
    private func answer(_ prepared: inout PreparedRequest, with entry: CacheEntry?, now: Date) {
        prepared.cache?.answered = true
        prepared.cache?.answer = entry
        prepared.cache?.delivery = entry.map { Self.delivery(of: $0, source: .cache, now: now) } ?? .network
    }

    /// The task of an attempt the cache answers (see ``answer(_:with:now:)``).
    func cacheAnswerTask(_ context: CacheContext, attempt: Int) -> any TransportTask {
        let entry = context.answer
        return CacheAnswerTask(
            response: entry?.httpResponse(age: context.delivery.age), body: entry?.body ?? Data(),
            events: AttemptEvents(core: self, attempt: attempt))
    }

    /// Puts a stored response in place of what the attempt received (a 304, or a failure).
    /// A `Range` of the request is answered from the stored response as from a fresh one.
    private func replaceResponse(with stored: CacheEntry, source: ResponseSource, attempt: Int, now: Date) {
        let delivery = Self.delivery(of: stored, source: source, now: now)
        state.withLock { state in
            state.machine.updateRunning(attempt: attempt) { values in
                let entry = CacheAnswer.ranged(stored, request: values.prepared.cache?.requestHeaders ?? [:])
                values.response = entry.httpResponse(age: delivery.age).map(ResponseHead.init)
                values.body = entry.body
                values.bytesReceived = Int64(entry.body.count)
                values.prepared.cache?.delivery = delivery
            }
        }
    }

    /// How a stored response is delivered at `now`: its age, and whether it is stale.
    private static func delivery(of entry: CacheEntry, source: ResponseSource, now: Date) -> CacheDelivery {
        let (lifetime, age) = CacheFreshness.assess(entry, now: now)
        return CacheDelivery(source: source, age: age, isStale: age >= lifetime)
    }

    /// Revalidates a stale stored response in the background (`stale-while-revalidate`): one
    /// conditional request per key at a time, whose answer (a `304` or a new response) updates
    /// the cache, and none once `entry` is no longer the stored response (see
    /// ``HTTPCache/beginRevalidation(_:of:request:)``). Nothing is delivered to the request: it was
    /// answered already.
    private func revalidateInBackground(
        _ entry: CacheEntry, request: URLRequest, key: CacheKey, cache: HTTPCache
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
        let events = CollectingEvents(configuration: session.configuration) { data, response, error in
            // Released after the answer is stored: a claim that follows reads that answer.
            defer { cache.endRevalidation(key) }
            let http = response as? HTTPURLResponse
            let failed = error != nil || http == nil
            let exchange = CacheDecision.Exchange(
                method: "GET", url: entry.url, requestHeaders: requestHeaders,
                hasCredentials: key.credential != nil,
                stored: entry, requestTime: requestTime, statusCode: failed ? nil : http?.statusCode,
                responseHeaders: http.map(HTTPHeaders.init(response:)) ?? [:], body: data,
                transportFailed: failed)
            switch CacheDecision.settle(exchange, now: Date()) {
            case .store(let fresh), .revalidated(let fresh): cache.store(fresh, for: key)
            case .pass, .serveStale, .invalidate: break
            }
        }
        let task = session.transport.makeTask(
            for: TransportRequest(urlRequest: conditional, isObserved: false), events: events)
        task.resume()
    }
}
