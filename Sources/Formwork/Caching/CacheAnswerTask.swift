import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An answer of the HTTP cache, delivered as a transport's task delivers a response: the engine
/// runs an attempt the cache answers like any other (its head, its body, its end), so validation,
/// retries, hooks, decoding and monitors run unchanged.
final class CacheAnswerTask: TransportTask {
    /// What the task delivers once, when resumed; `nil` once delivered or cancelled.
    private let pending: Protected<(events: any TransportEvents, response: HTTPURLResponse?, body: Data)?>

    /// A task that answers with `response` and `body`, or, with no response (`cacheOnly` with
    /// nothing stored), fails with `URLError.resourceUnavailable`.
    init(response: HTTPURLResponse?, body: Data, events: any TransportEvents) {
        pending = Protected((events, response, body))
    }

    func resume() {
        guard let (events, response, body) = pending.withLock({ $0.take() }) else { return }
        guard let response else {
            events.finish(URLError(.resourceUnavailable))
            return
        }
        if events.receiveResponse(response), !body.isEmpty { events.receiveBody(body) }
        events.finish(nil)
    }

    func cancel() {
        _ = pending.withLock { $0.take() }
    }
}
