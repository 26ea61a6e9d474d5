import Foundation

/// One wait of a task for its request's outcome (see `RequestCore.waitForOutcome()`): resumed
/// once, with the outcome, or with a transport's completion work to run first.
final class OutcomeWait: Sendable {
    /// What ends the wait.
    enum Wake: Sendable {
        /// The request's outcome.
        case outcome(RequestOutcome)
        /// Work to run in the waiting task; the wait starts again after it.
        case work(@Sendable () -> Void)
    }

    private let continuation: Protected<CheckedContinuation<Wake, Never>?>

    init(_ continuation: CheckedContinuation<Wake, Never>) {
        self.continuation = Protected(continuation)
    }

    /// Ends the wait with `wake`, unless it ended already.
    /// - Returns: Whether this call ended it.
    @discardableResult
    func resume(_ wake: Wake) -> Bool {
        let continuation = continuation.withLock { continuation in
            defer { continuation = nil }
            return continuation
        }
        continuation?.resume(returning: wake)
        return continuation != nil
    }
}

extension RequestCore {
    /// Waits for the request's outcome, as one of the ``State/awaitingTasks`` (which the caller
    /// counted before it started the request; this call ends that count). Meanwhile a
    /// transport's completion handed over (see ``WaitingTaskRunner``) runs in this task, which then
    /// waits again, usually for an outcome that is already there.
    func waitForOutcome() async -> RequestOutcome {
        while true {
            let wake = await withCheckedContinuation {
                (continuation: CheckedContinuation<OutcomeWait.Wake, Never>) in
                let wait = OutcomeWait(continuation)
                let ready = state.withLock { state -> OutcomeWait.Wake? in
                    if let work = state.pendingWork {
                        state.pendingWork = nil
                        return .work(work)
                    }
                    if let outcome = state.machine.outcome {
                        state.awaitingTasks -= 1
                        return .outcome(outcome)
                    }
                    state.waiters.append { wait.resume(.outcome($0)) }
                    if state.waitingTask == nil { state.waitingTask = wait }
                    return nil
                }
                if let ready { wait.resume(ready) }
            }
            switch wake {
            case .work(let work):
                work()
            case .outcome(let outcome):
                // Resumed by the outcome's waiters: work handed over meanwhile still runs here,
                // then this task stops counting as one that awaits.
                while let work = takePendingWorkOrLeave() { work() }
                return outcome
            }
        }
    }

    /// The work handed over and not run yet, if any; else this task stops counting as awaiting.
    private func takePendingWorkOrLeave() -> (@Sendable () -> Void)? {
        state.withLock { state in
            if let work = state.pendingWork {
                state.pendingWork = nil
                return work
            }
            state.awaitingTasks -= 1
            return nil
        }
    }

    /// Hands `work` to a task that awaits the outcome: the one waiting now, or, when the request
    /// is awaited but its task has not begun to wait yet, the next wait of that task.
    /// - Returns: `false` when no task awaits the outcome (or work is handed over already).
    func runInWaitingTask(_ work: @escaping @Sendable () -> Void) -> Bool {
        enum Handover {
            case toWait(OutcomeWait)
            case keptForTheNextWait
            case nobodyAwaits
        }
        let handover = state.withLock { state -> Handover in
            if let wait = state.waitingTask {
                state.waitingTask = nil
                return .toWait(wait)
            }
            guard state.awaitingTasks > 0, state.pendingWork == nil else { return .nobodyAwaits }
            state.pendingWork = work
            return .keptForTheNextWait
        }
        switch handover {
        case .toWait(let wait): return wait.resume(.work(work))
        case .keptForTheNextWait: return true
        case .nobodyAwaits: return false
        }
    }
}
