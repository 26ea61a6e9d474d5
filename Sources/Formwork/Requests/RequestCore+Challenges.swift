import Foundation

/// How an attempt ended when Formwork ended it itself, on an event of the session delegate.
struct SettledAttempt: Sendable {
    /// What the attempt's outcome is.
    enum Outcome: Sendable {
        /// The `401`/`407` of an authentication challenge Formwork declined: on Linux the task
        /// can only be ended by cancelling it, and this response is its real outcome.
        case response(HTTPURLResponse)
        /// A failure found by Formwork, e.g. a redirect refused because its request would carry
        /// an invalid header.
        case failure(NetworkError)
    }

    /// The attempt it applies to.
    let attempt: Int
    /// Its outcome.
    let outcome: Outcome
}

// Attempts ended by the session delegate: the task's own end still runs the one normal completion
// path (validation, retriers, handlers), which reads the settled outcome instead of the
// cancellation or the unfollowed redirect the task reports.
extension RequestCore {
    /// Attempt `attempt` ends with `outcome` whatever its task reports when it ends (which the
    /// caller makes happen: a cancelled challenge, a refused redirect). Ignored for a stale attempt.
    func settle(attempt: Int, _ outcome: SettledAttempt.Outcome) {
        state.withLock { state in
            guard state.machine.isRunning(attempt: attempt) else { return }
            state.settledAttempt = SettledAttempt(attempt: attempt, outcome: outcome)
        }
    }

    /// How the end of `attempt`'s task reads: a declined challenge's response replaces the
    /// cancellation (the body is what arrived, if any); a refused redirect's failure replaces
    /// whatever the task reported.
    /// - Returns: The error to evaluate and the failure that overrides everything else, if any.
    func settledEnd(of attempt: Int, error: (any Error)?) -> (error: (any Error)?, failure: NetworkError?) {
        state.withLock { state in
            guard let settled = state.settledAttempt, settled.attempt == attempt else { return (error, nil) }
            switch settled.outcome {
            case .response(let response):
                if state.response == nil { state.response = response }
                return (nil, nil)
            case .failure(let failure):
                return (error, failure)
            }
        }
    }
}
