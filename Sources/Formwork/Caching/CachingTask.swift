import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The task of an exchange the cache layer may answer (see ``CachingTransport``): resuming it
/// looks the request up, then delivers the cache's answer (a ``CacheAnswerTask``) or makes and
/// resumes the task of the layers below, whose end the cache settles (``CacheSettlingEvents``).
/// A redirect is a hop of its own (``RedirectHopEvents``): stored and answered under its own URL,
/// and followed, when the request's rules say so, by another lookup and exchange for the next
/// URL. Cancelled during a lookup, it starts nothing and reports nothing more.
final class CachingTask: TransportTask {
    /// Where the task is.
    private enum Phase {
        /// Made, not resumed.
        case ready
        /// Resumed: the cache is being looked up.
        case lookingUp
        /// The cache's answer, or the exchange below, runs.
        case running(any TransportTask)
        /// Cancelled.
        case cancelled
    }

    /// The most hops one exchange follows before it fails with `.httpTooManyRedirects` (stored
    /// redirects could otherwise lead in a circle without reaching the server).
    static let maximumRedirects = 16

    private let phase = Protected(Phase.ready)
    private let request: TransportRequest
    private let events: any TransportEvents
    private let context: CacheContext
    private let layer: CachingTransport

    init(
        request: TransportRequest, events: any TransportEvents, context: CacheContext, layer: CachingTransport
    ) {
        self.request = request
        self.events = events
        self.context = context
        self.layer = layer
    }

    func resume() {
        let starts = phase.withLock { phase -> Bool in
            guard case .ready = phase else { return false }
            phase = .lookingUp
            return true
        }
        guard starts else { return }
        // The one hop the cache adds, only to a session that has a cache: the lookup awaits the
        // cache (an actor; a disk cache reads files), which `resume()` must not wait for.
        Task { await lookUpAndRun(request, context: context, hop: 0) }
    }

    func cancel() {
        let running = phase.withLock { phase -> (any TransportTask)? in
            defer { phase = .cancelled }
            if case .running(let task) = phase { return task }
            return nil
        }
        running?.cancel()
    }

    /// Starts hop `hop` with `sent`, unless the task was cancelled: another lookup and exchange.
    private func next(_ sent: URLRequest, hop: Int) {
        let goesOn = phase.withLock { phase -> Bool in
            guard case .running = phase else { return false }
            phase = .lookingUp
            return true
        }
        guard goesOn else { return }
        guard hop <= Self.maximumRedirects else {
            events.finish(URLError(.httpTooManyRedirects))
            return
        }
        var request = self.request
        request.urlRequest = sent
        // Told once, by the first hop.
        request.reportStart = nil
        let context = layer.context(for: sent, policy: self.context.policy)
        Task { await lookUpAndRun(request, context: context, hop: hop) }
    }

    /// Looks `request` up, then runs the cache's answer or the exchange below, unless the task
    /// was cancelled meanwhile.
    private func lookUpAndRun(_ request: TransportRequest, context: CacheContext, hop: Int) async {
        var context = context
        var sent = request
        let answer = await layer.lookUp(
            &context, request: &sent.urlRequest, asksServer: request.cacheUse?.asksServer == true)
        let hopEvents = RedirectHopEvents(events, request: sent.urlRequest) { [self] next in
            self.next(next, hop: hop + 1)
        }
        let task: any TransportTask
        if let answer {
            request.reportStart?(request.urlRequest, nil)
            task = CacheAnswerTask(entry: answer.entry, delivery: answer.delivery, events: hopEvents)
        } else {
            let settling = CacheSettlingEvents(hopEvents, context: context, cache: layer.cache)
            task = layer.base.makeTask(for: sent, events: settling)
        }
        let runs = phase.withLock { phase -> Bool in
            guard case .lookingUp = phase else { return false }
            phase = .running(task)
            return true
        }
        guard runs else {
            task.cancel()  // e.g. leaves an identical request's exchange it joined
            return
        }
        task.resume()
    }
}
