import Foundation

/// Coalescing as a layer around the session's transport, in the transport's own shape: an
/// exchange whose request may be shared (``TransportRequest`` `sharing`, set by the engine for
/// identical-request-safe GET and HEAD requests) joins an identical one in flight, or starts one
/// that identical requests made meanwhile join. Every caller gets a task of its own
/// (``SharedExchangeTask``); the shared exchange is cancelled when the last caller's task is.
/// Any other exchange goes to the transport as it is. The layer is the one that knows whether an
/// exchange is sent or joined, so it tells the request's `reportStart` (the event monitors) which,
/// when the caller resumes its task.
struct CoalescingTransport: Transport {
    /// The transport under the layer.
    let base: any Transport
    /// The session's table of shared exchanges in flight.
    let coalescer: Coalescer

    func makeTask(for request: TransportRequest, events: any TransportEvents) -> any TransportTask {
        guard let sharing = request.sharing,
            let key = CoalescingKey(request.urlRequest, formCachePolicy: sharing.formCachePolicy)
        else {
            return StartReportingTransport(base: base).makeTask(for: request, events: events)
        }
        let task = SharedExchangeTask(
            events: events, sending: request.urlRequest, report: request.reportStart)
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
final class SharedExchangeTask: TransportTask {
    /// The caller's events.
    let events: any TransportEvents
    /// The shared exchange, and whether this caller leads it; set once, right after it is made.
    private let entry = Protected<Coalescer.Entry?>(nil)
    /// Whether this caller, leading the exchange, started it.
    private let resumedLeader = Protected(false)
    /// What the caller's request sends (or would, had it not joined another's exchange).
    private let sending: URLRequest
    /// Told whether the caller sends or joins, when it resumes (see ``TransportRequest``).
    private let report: (@Sendable (_ sent: URLRequest, _ sharingWith: UUID?) -> Void)?

    init(
        events: any TransportEvents, sending: URLRequest,
        report: (@Sendable (_ sent: URLRequest, _ sharingWith: UUID?) -> Void)?
    ) {
        self.events = events
        self.sending = sending
        self.report = report
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

    /// Starts the exchange when this caller leads it; a caller that joined one sends nothing
    /// (the exchange is resumed by its leader, or already was).
    func resume() {
        switch entry.withLock({ $0 }) {
        case .lead(let flight):
            report?(sending, nil)
            resumedLeader.withLock { $0 = true }
            flight.task?.resume()
        case .follow(let flight):
            if let report, let leaderID = flight.leaderID { report(sending, leaderID) }
        case nil:
            break
        }
    }

    func cancel() {
        guard let flight else { return }
        if flight.leave(self) {
            // The last caller: the leader left already, so the task is set (its `enter` returned).
            flight.task?.cancel()
        } else if case .lead = entry.withLock({ $0 }), !resumedLeader.withLock({ $0 }) {
            // A leader cancelled before it started the exchange (its request ended while the
            // task was being made): the callers that joined it still wait for it, so it starts.
            flight.task?.resume()
        }
    }
}
