import Foundation

// Delivering outcomes: the ordered handler chain, async waiters, and reload restarts.
extension RequestCore {
    /// Adds a link to the handler chain. If the request already finished, it runs soon, after
    /// every link chained before it.
    func append(_ link: @escaping Link) {
        start()
        perform(
            state.withLock { state in
                state.links.append(link)
                return state.event { $0.handlerChained() }
            })
    }

    /// Runs the handler at `index` with the outcome, then each handler the machine names next,
    /// one after the other, in order (the `.runHandler` action). Handlers are async app code: they
    /// run in one task of their own, off the thread that ended the request, and a handler that
    /// follows runs in the same task rather than in a new one. Whatever else the machine asks when
    /// the last one returns (a reload that waited for it) is performed as usual.
    func runHandlers(from index: Int) {
        Task {
            var index = index
            while true {
                guard
                    let (link, outcome) = state.withLock({ state in
                        state.machine.outcome.map { (state.links[index], $0) }
                    })
                else { return }
                await link(outcome)
                let next = state.withLock { $0.event { $0.handlerFinished() } }
                guard case .runHandler(let following) = next else {
                    perform(next)
                    return
                }
                index = following
            }
        }
    }

    /// Waits for the outcome without going through the main actor. Cancelling the waiting Swift
    /// `Task` cancels the request.
    ///
    /// When this call starts the request, the first attempt is built in the waiting task itself:
    /// it already runs off the caller's actor (a nonisolated async function runs on the global
    /// executor), so a `Task` of its own would only add a hop per request.
    func outcome() async -> RequestOutcome {
        let attempt = beginFirstAttempt()
        // Counted before the request can end: its completion may be handed to this task.
        state.withLock { $0.awaitingTasks += 1 }
        return await withTaskCancellationHandler {
            if let attempt { await run(attempt: attempt) }
            return await waitForOutcome()
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
        perform(state.withLock { $0.event { $0.reload() } })
    }
}
