import Foundation

/// What ends one wait of a task for its request's outcome (see `RequestCore.waitForOutcome()`).
enum OutcomeWake: Sendable {
    /// The request's outcome.
    case outcome(RequestOutcome)
    /// Work to run in the waiting task; the wait starts again after it.
    case work(@Sendable () -> Void)
}

/// One wait of a task for its request's outcome. Unchecked: it is kept in the request's state and
/// resumed once, by whoever takes it out of there under the request's lock (a checked
/// continuation allocates a canary per wait; the class, lock and closure that wrapped it before
/// cost about 4,000 instructions per awaited request, most requests wait twice).
typealias OutcomeWait = UnsafeContinuation<OutcomeWake, Never>

extension RequestCore {
    /// Waits for the request's outcome, as one of the ``State/awaitingTasks`` (which the caller
    /// counted before it started the request; this call ends that count). Meanwhile a
    /// transport's completion handed over (see ``WaitingTaskRunner``) runs in this task, which then
    /// waits again, usually for an outcome that is already there.
    func waitForOutcome() async -> RequestOutcome {
        while true {
            let wake = await withUnsafeContinuation { (wait: OutcomeWait) in
                let ready = state.withLock { state -> OutcomeWake? in
                    if let work = state.pendingWork {
                        state.pendingWork = nil
                        return .work(work)
                    }
                    if let outcome = state.machine.outcome {
                        state.awaitingTasks -= 1
                        return .outcome(outcome)
                    }
                    if state.waitingTask == nil {
                        state.waitingTask = wait
                    } else {
                        state.otherWaits.append(wait)
                    }
                    return nil
                }
                if let ready { wait.resume(returning: ready) }
            }
            switch wake {
            case .work(let work):
                work()
            case .outcome(let outcome):
                // Resumed by the outcome: work handed over meanwhile still runs here,
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
        case .toWait(let wait):
            wait.resume(returning: .work(work))
            return true
        case .keptForTheNextWait: return true
        case .nobodyAwaits: return false
        }
    }
}
