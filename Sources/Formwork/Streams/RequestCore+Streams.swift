import Foundation

extension RequestCore {
    /// Lets a stream's own rule answer the failure of a connection before the retriers do: an
    /// event stream reconnects after a drop or a clean end (`StreamSink.reconnectDelay`). Returns
    /// `true` when the machine took the reconnection (the retriers are then not asked).
    func reconnectsStream(after failure: NetworkError?, attempt: Int) -> Bool {
        guard let stream = sink as? StreamSink, let failure,
            let delay = stream.reconnectDelay(after: failure)
        else { return false }
        typealias Reconnect = (RequestStateMachine.Action, (any TransportTask)?, PreparedRequest?)
        let (action, task, prepared) = state.withLock { state -> Reconnect in
            let action = state.event { $0.reconnectDecided(attempt: attempt, delay: delay) }
            guard case .scheduleRetry = action else { return (action, nil, nil) }
            return (action, state.machine.takeTask(), state.machine.latest?.prepared)
        }
        guard case .scheduleRetry(let wait, _) = action else { return true }
        Task { await self.waitAndRunNextAttempt(wait: wait, after: attempt, task: task, prepared: prepared) }
        return true
    }
}
