import Foundation

@available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
extension WebSocket {
    /// Binds a ``RequestModel`` to the socket, for a live screen: ``RequestModel/value`` is the
    /// latest message and ``RequestModel/connection`` the state of the connection.
    ///
    /// ```swift
    /// let prices = RequestModel<WebSocketMessage>()
    /// session.webSocket(PricesForm(), options: .init(reconnection: .standard)).bind(to: prices)
    /// ```
    ///
    /// The model reads the socket (read it no other way: ``WebSocket/send(_:)`` and
    /// ``WebSocket/ping()`` still work). ``RequestModel/phase`` is ``RequestModel/Phase/loading``
    /// while the socket runs, reconnections included, and ``RequestModel/connection`` goes
    /// `connecting`, `open`, then `lost` and `reconnecting(after:)` after a drop, and so on, until
    /// `closed`. When messages arrive faster than a screen can show them, the model changes at
    /// most once per frame (1/60 s) with the newest message; the last message is always shown
    /// (a screen that must show every message, such as a chat, reads ``WebSocket/messages()``
    /// instead). At the end the phase is ``RequestModel/Phase/succeeded(_:)`` with the last
    /// message when the socket closed (``RequestModel/Phase/idle`` if none came), failed with the
    /// error, or idle after a cancel.
    ///
    /// The socket holds the model weakly: once the model is released, or something else took it
    /// over (a later `bind(to: model)`), the socket is cancelled at its next message or change of
    /// state. ``RequestModel/cancel()`` cancels the socket at once. A socket that ended does not
    /// open again, so ``RequestModel/reload()`` does nothing: bind a new socket.
    /// - Parameter model: The model to bind.
    /// - Returns: The socket.
    @MainActor
    @discardableResult
    public func bind(to model: RequestModel<WebSocketMessage>) -> Self {
        let driver = model.attach(cancel: { [weak self] in self?.cancel() }, resend: {})
        driver.canResend = false
        let relay = MainActorRelay<StreamModelUpdate<WebSocketMessage>>(
            minimumInterval: MainActorRelay<StreamModelUpdate<WebSocketMessage>>.frameInterval,
            merge: StreamModelUpdate.merge
        ) { [weak self, weak model, weak driver] update in
            // The screen is gone, or something else took the model over: nothing shows the socket.
            guard let model, model.isDriven(by: driver) else {
                self?.cancel()
                return
            }
            model.apply(update, from: driver)
        }
        model.begin(from: driver)
        let isAbandoned: @Sendable () -> Bool = { [weak model] in model == nil }
        let updates = updates()
        Task { [weak model, weak driver] in
            let failure = await Self.readAll(updates, relay: relay, isAbandoned: isAbandoned)
            await MainActor.run {
                relay.flush()  // the last message, before the end
                model?.end(failure, from: driver)
            }
        }
        return self
    }

    /// Reads the socket's updates into the relay until it ends (or nothing wants them any more);
    /// returns how it ended. The connection's states become a stream's: `lost` when an open
    /// connection ends, before `reconnecting(after:)` or the end.
    private static func readAll(
        _ updates: WebSocketSequence<WebSocketUpdate>,
        relay: MainActorRelay<StreamModelUpdate<WebSocketMessage>>, isAbandoned: @Sendable () -> Bool
    ) async -> NetworkError? {
        var wasOpen = false
        do {
            for try await update in updates {
                if isAbandoned() { return nil }  // leaving the loop cancels the socket
                switch update {
                case .message(let message):
                    relay.post(StreamModelUpdate(value: message))
                case .state(let state):
                    for connection in connectionStates(state, wasOpen: &wasOpen) {
                        relay.post(StreamModelUpdate(connection: connection))
                    }
                }
            }
            return nil
        } catch {
            return .building(error)  // the reader throws only NetworkError
        }
    }

    /// What a change of the socket's state shows as the connection of a model (the end itself,
    /// `closed`, is set when the reading ends).
    static func connectionStates(_ state: WebSocketState, wasOpen: inout Bool) -> [StreamConnectionState] {
        let lost: [StreamConnectionState] = wasOpen ? [.lost] : []
        switch state {
        case .idle:
            return []
        case .connecting:
            return [.connecting]
        case .open:
            wasOpen = true
            return [.open]
        case .reconnecting(let seconds):
            wasOpen = false
            return lost + [.reconnecting(after: seconds)]
        case .closed(nil):
            return []  // the app cancelled or closed it: not a loss
        case .closed, .failed:
            wasOpen = false
            return lost
        }
    }
}
