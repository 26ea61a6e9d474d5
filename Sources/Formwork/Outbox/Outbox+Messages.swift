import Foundation

/// Where the app shows the results of outbox requests, on the main actor.
struct OutboxMessageTarget: Sendable {
    let show: @MainActor @Sendable (Outbox.Delivery) -> Void
}

extension Outbox {
    /// Shows the failures of outbox requests with `warnable` — also those that end after
    /// the screen that enqueued them is gone, so pass something that lives as long as the app
    /// (a banner, an app-wide alert). Messages are chosen as `.warn` chooses them for a request:
    /// a final failure, or a 2xx whose body (read with `E`) holds a code that is not a success
    /// code, shows the server's message, else a short sentence (``NetworkError/userMessage``).
    /// A cancel shows nothing. The outbox keeps `warnable`; each call adds one more target.
    /// - Parameters:
    ///   - error: The error type that reads a response body.
    ///   - warnable: What shows the message.
    @MainActor
    public func warn<E: JSONErrorable>(_ error: E.Type, with warnable: some Warnable) {
        let show: @MainActor @Sendable (Delivery) -> Void = { delivery in
            // As `.warn` on a request: a 2xx whose body holds a failure code is a failure too.
            guard case .failure(let message) = Self.messageVerdict(E.self, of: delivery) else { return }
            warnable.show(error: message)
        }
        messageTargets.withLock { $0.append(OutboxMessageTarget(show: show)) }
    }

    /// Shows `informable` each time an outbox request succeeds (a 2xx whose body, read with `E`,
    /// has a success code), also after the screen that enqueued it is gone. The outbox keeps
    /// `informable`.
    /// - Parameters:
    ///   - error: The error type that reads a response body.
    ///   - informable: What shows the success message.
    @MainActor
    public func inform<E: JSONErrorable>(_ error: E.Type, with informable: some Informable) {
        let show: @MainActor @Sendable (Delivery) -> Void = { delivery in
            guard case .success = Self.messageVerdict(E.self, of: delivery) else { return }
            informable.show()
        }
        messageTargets.withLock { $0.append(OutboxMessageTarget(show: show)) }
    }

    /// What `.warn` and `.inform` make of a delivery.
    private nonisolated static func messageVerdict<E: JSONErrorable>(_: E.Type, of delivery: Delivery)
        -> MessageVerdict<E>
    {
        let outcome = RequestOutcome(
            request: nil, response: delivery.response, data: delivery.body, error: delivery.result.failure,
            attempt: delivery.attempts, duration: 0)
        return MessageVerdict<E>(outcome, bodyInMemory: true)
    }
}

extension Result {
    /// The failure, if it is one.
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
