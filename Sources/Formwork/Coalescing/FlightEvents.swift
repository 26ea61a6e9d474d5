import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The events of a task that identical requests share (coalescing): each event goes to every
/// request's attempt in the ``Flight`` (and closes the flight to newcomers).
final class FlightEvents: TransportEvents {
    private let flight: @Sendable () -> Flight?

    /// Creates the events of the flight `flight` returns (set once the flight exists, before its
    /// task is resumed).
    init(flight: @escaping @Sendable () -> Flight?) {
        self.flight = flight
    }

    private var targets: [Flight.Subscriber] { flight()?.deliveryTargets() ?? [] }

    func receiveResponse(_ response: URLResponse) -> Bool {
        var wanted = false
        for target in targets where target.core.taskDidReceive(response: response, attempt: target.attempt) {
            wanted = true
        }
        return wanted
    }

    func receiveResponseHead(_ head: TransportResponseHead) -> Bool {
        // One head for all: its `HTTPURLResponse`, if any of them asks, is made once.
        let head = ResponseHead(head)
        var wanted = false
        for target in targets
        where target.core.taskDidReceive(
            head: head, expectedContentLength: head.expectedContentLength, attempt: target.attempt)
        {
            wanted = true
        }
        return wanted
    }

    func receiveBody(_ body: Data) {
        for target in targets { target.core.taskDidReceive(data: body, attempt: target.attempt) }
    }

    func sent(totalBytes: Int64, expectedBytes: Int64?) {
        // Shared requests have no body: nothing to report.
    }

    func redirect(_ response: HTTPURLResponse, to request: URLRequest) -> URLRequest? {
        // The same rule for every request sharing the task: each one settles its own failure.
        var next: URLRequest?
        for target in targets {
            next = target.core.redirect(response, to: request, attempt: target.attempt)
        }
        return next
    }

    func credential(isProxy: Bool, previousFailures: Int) -> PasswordCredential? {
        guard let core = targets.first?.core else { return nil }
        return PasswordCredential.answering(
            isProxy: isProxy, previousFailures: previousFailures, configuration: core.session.configuration)
    }

    func finish(_ error: (any Error)?) {
        guard let flight = flight() else { return }
        for target in flight.deliveryTargets() {
            target.core.taskDidComplete(error: error, attempt: target.attempt)
        }
        flight.taskEnded()
    }
}
