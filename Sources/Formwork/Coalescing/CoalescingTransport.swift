import Foundation

/// Coalescing as a layer around the session's transport, in the transport's own shape: an
/// exchange whose request may be shared (``TransportRequest`` `sharing`, set by the engine for
/// identical-request-safe GET and HEAD requests) joins an identical one in flight, or starts one
/// that identical requests made meanwhile join. Every caller gets a task of its own
/// (``SharedExchangeTask``); the shared exchange is cancelled when the last caller's task is.
/// Any other exchange goes to the transport as it is.
struct CoalescingTransport: Transport {
    /// The transport under the layer.
    let base: any Transport
    /// The session's table of shared exchanges in flight.
    let coalescer: Coalescer

    func makeTask(for request: TransportRequest, events: any TransportEvents) -> any TransportTask {
        guard let sharing = request.sharing,
            let key = CoalescingKey(request.urlRequest, formCachePolicy: sharing.formCachePolicy)
        else {
            return base.makeTask(for: request, events: events)
        }
        let task = SharedExchangeTask(events: events)
        let entry = coalescer.enter(
            key, as: task, leaderID: sharing.requestID, deliversAtCompletion: !request.isObserved
        ) { flight in
            // Every caller sharing the exchange gets each of its events.
            base.makeTask(for: request, events: FlightEvents(flight: flight))
        }
        task.attach(entry)
        return task
    }

    func enforcesIdleTimeout(of seconds: TimeInterval) -> Bool {
        base.enforcesIdleTimeout(of: seconds)
    }
}

/// One caller's task on an exchange that identical requests share (see ``CoalescingTransport``):
/// the caller that started the exchange resumes it; a caller that joined one sends nothing.
/// Cancelling it only stops its own events, unless it is the last caller: the exchange is then
/// cancelled too.
final class SharedExchangeTask: SharingTransportTask {
    /// The caller's events.
    let events: any TransportEvents
    /// The shared exchange, and whether this caller leads it; set once, right after it is made.
    private let entry = Protected<Coalescer.Entry?>(nil)

    init(events: any TransportEvents) {
        self.events = events
    }

    /// Sets the exchange this task shares (before anything can resume or cancel it).
    func attach(_ entry: Coalescer.Entry) {
        self.entry.withLock { $0 = entry }
    }

    /// The shared exchange.
    var flight: Flight? {
        switch entry.withLock({ $0 }) {
        case .lead(let flight), .follow(let flight): flight
        case nil: nil
        }
    }

    var follows: Bool {
        if case .follow = entry.withLock({ $0 }) { return true }
        return false
    }

    var leaderID: UUID? { flight?.leaderID }

    func resume() {
        guard case .lead(let flight) = entry.withLock({ $0 }) else { return }
        flight.task.resume()
    }

    func cancel() {
        guard let flight, flight.leave(self) else { return }
        flight.task.cancel()
    }
}
