import Foundation

// Delivering outcomes: the ordered handler chain, async waiters, and reload restarts.
extension RequestCore {
    /// Adds a link to the handler chain. If the request already finished, it runs soon, after
    /// every link chained before it.
    func append(_ link: @escaping Link) {
        start()
        let drain = state.withLock { state -> Bool in
            state.links.append(link)
            guard state.outcome != nil, !state.isDraining else { return false }
            state.isDraining = true
            return true
        }
        if drain { startDraining() }
    }

    func startDraining() {
        Task {
            while let (link, outcome) = self.nextLink() {
                await link(outcome)
            }
        }
    }

    private func nextLink() -> (Link, RequestOutcome)? {
        let next = state.withLock { state -> (Link, RequestOutcome)?? in
            guard let outcome = state.outcome, state.delivered < state.links.count else {
                state.isDraining = false
                let restart = state.restartPending
                state.restartPending = false
                return restart ? .some(nil) : nil
            }
            let link = state.links[state.delivered]
            state.delivered += 1
            return (link, outcome)
        }
        switch next {
        case .some(.some(let pair)):
            return pair
        case .some(.none):
            restart()
            return nil
        case .none:
            return nil
        }
    }

    /// Waits for the outcome without going through the main actor. Cancelling the waiting Swift
    /// `Task` cancels the request.
    func outcome() async -> RequestOutcome {
        start()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> RequestOutcome? in
                    if let outcome = state.outcome { return outcome }
                    state.waiters.append { continuation.resume(returning: $0) }
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            self.cancel()
        }
    }

    // MARK: Reload

    /// Registers work to run on the main actor when a later attempt starts (a reload), such as a
    /// loading mask's `begin()`. The first attempt's work is done by whoever chains the hook.
    func onLaterAttemptStart(_ handler: @escaping @MainActor @Sendable () -> Void) {
        state.withLock { $0.attemptStartHandlers.append(handler) }
    }

    /// Sends a finished request again through the same chain: every link runs again with the new
    /// attempt's outcome. If the previous outcome is still being delivered, the restart waits for
    /// the delivery to finish. A cancelled request stays cancelled.
    func restart() {
        typealias Restart = (Int, [@MainActor @Sendable () -> Void])
        let restart = state.withLock { state -> Restart? in
            if state.isDraining {
                state.restartPending = state.lifecycle.state == .finished
                return nil
            }
            guard case .buildRequest(let attempt) = state.lifecycle.restart() else { return nil }
            state.outcome = nil
            state.delivered = 0
            state.task = nil
            state.response = nil
            state.data = Data()
            state.progress = nil
            state.startedAt = Date()
            return (attempt, state.attemptStartHandlers)
        }
        guard let (attempt, handlers) = restart else { return }
        Task {
            await MainActor.run {
                for handler in handlers { handler() }
            }
            await self.run(attempt: attempt)
        }
    }
}
