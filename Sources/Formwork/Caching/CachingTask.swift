import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The task of an exchange the cache layer may answer (see ``CachingTransport``): resuming it
/// looks the request up, then delivers the cache's answer (a ``CacheAnswerTask``) or makes and
/// resumes the task of the layers below, whose end the cache settles (``CacheSettlingEvents``).
/// Cancelled during the lookup, it starts nothing and reports nothing more.
final class CachingTask: TransportTask {
    /// Where the task is.
    private enum Phase {
        /// Made, not resumed.
        case ready
        /// Resumed: the cache is being looked up.
        case lookingUp
        /// The cache's answer, or the exchange below, runs.
        case running(any TransportTask)
        /// Cancelled before anything ran.
        case cancelled
    }

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
        Task { await lookUpAndRun() }
    }

    func cancel() {
        let running = phase.withLock { phase -> (any TransportTask)? in
            switch phase {
            case .running(let task): return task
            case .ready, .lookingUp: phase = .cancelled
            case .cancelled: break
            }
            return nil
        }
        running?.cancel()
    }

    /// Looks the request up, then runs the cache's answer or the exchange below, unless the task
    /// was cancelled meanwhile.
    private func lookUpAndRun() async {
        var context = self.context
        var sent = request
        let answer = await layer.lookUp(
            &context, request: &sent.urlRequest, asksServer: request.cacheUse?.asksServer == true)
        let task: any TransportTask
        if let answer {
            request.reportStart?(request.urlRequest, nil)
            task = CacheAnswerTask(entry: answer.entry, delivery: answer.delivery, events: events)
        } else {
            let settling = CacheSettlingEvents(events, context: context, cache: layer.cache)
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
