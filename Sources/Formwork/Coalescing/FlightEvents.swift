import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The events of a task that identical requests share (coalescing): each event goes to every
/// request's attempt in the ``Flight`` (and closes the flight to newcomers).
final class FlightEvents: TransportEvents, WaitingTaskRunner {
    private let flight: @Sendable () -> Flight?

    /// Creates the events of the flight `flight` returns (set once the flight exists, before its
    /// task is resumed).
    init(flight: @escaping @Sendable () -> Flight?) {
        self.flight = flight
    }

    private var targets: [Flight.Subscriber] { flight()?.deliveryTargets() ?? [] }

    func receiveResponseHead(_ head: TransportResponseHead) -> Bool {
        var wanted = false
        for target in targets where target.events.receiveResponseHead(head) {
            wanted = true
        }
        return wanted
    }

    func receiveBody(_ body: Data) {
        for target in targets { target.events.receiveBody(body) }
    }

    func sent(totalBytes: Int64, expectedBytes: Int64?) {
        // Shared requests have no body: nothing to report.
    }

    func redirect(_ response: HTTPURLResponse, to request: URLRequest) -> URLRequest? {
        // The same rule for every request sharing the task: each one settles its own failure.
        var next: URLRequest?
        for target in targets {
            next = target.events.redirect(response, to: request)
        }
        return next
    }

    func credential(isProxy: Bool, previousFailures: Int) -> PasswordCredential? {
        targets.first?.events.credential(isProxy: isProxy, previousFailures: previousFailures)
    }

    func finish(_ error: (any Error)?) {
        guard let flight = flight() else { return }
        for target in flight.deliveryTargets() {
            target.events.finish(error)
        }
        flight.taskEnded()
    }

    /// Hands `work` (the shared task's completion, which reaches every request in the flight) to
    /// the first request whose task awaits its outcome. The completion is the flight's first
    /// event: this closes the flight to newcomers, as delivering it would.
    func runInWaitingTask(_ work: @escaping @Sendable () -> Void) -> Bool {
        for target in targets {
            if let runner = target.events as? any WaitingTaskRunner, runner.runInWaitingTask(work) {
                return true
            }
        }
        return false
    }
}
