import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An answer of the HTTP cache, delivered as a transport's task delivers a response, its head
/// marked with its source: the engine runs an attempt the cache answers like any other (its head,
/// its body, its end), so validation, retries, hooks, decoding and monitors run unchanged.
final class CacheAnswerTask: TransportTask {
    /// What the task delivers once, when resumed; `nil` once delivered or cancelled.
    private let pending: Protected<(events: any TransportEvents, head: TransportResponseHead?, body: Data)?>

    /// A task that delivers `entry` (nil: fails with `URLError.resourceUnavailable`) as `delivery`
    /// says.
    init(entry: CacheEntry?, delivery: CacheDelivery, events: any TransportEvents) {
        let head = entry.flatMap { Self.head(of: $0, delivery: delivery) }
        pending = Protected((events, head, entry?.body ?? Data()))
    }

    func resume() {
        guard let (events, head, body) = pending.withLock({ $0.take() }) else { return }
        guard let head else {
            events.finish(URLError(.resourceUnavailable))
            return
        }
        if events.receiveResponseHead(head), !body.isEmpty { events.receiveBody(body) }
        events.finish(nil)
    }

    func cancel() {
        _ = pending.withLock { $0.take() }
    }

    /// The response head of a stored response delivered as `delivery` says (with its `Age`).
    static func head(of entry: CacheEntry, delivery: CacheDelivery) -> TransportResponseHead? {
        guard let url = URL(string: entry.url) else { return nil }
        var fields = entry.headers
        if let age = delivery.age { fields["Age"] = String(Int(max(0, age).rounded(.down))) }
        var head = TransportResponseHead(url: url, statusCode: entry.statusCode, headerFields: Array(fields))
        head.cacheDelivery = delivery
        return head
    }
}
