import Foundation

/// An attempt Formwork failed itself while its exchange went on, e.g. a redirect refused because
/// its request would carry an invalid header.
struct SettledAttempt: Sendable {
    /// The attempt it applies to.
    let attempt: Int
    /// Its failure.
    let failure: NetworkError
}

// Attempts failed on a transport's question: the exchange's own end still runs the one normal
// completion path (validation, retriers, handlers), which reads the settled failure instead of
// whatever the transport reports (an unfollowed redirect's response).
extension RequestCore {
    /// Attempt `attempt` fails with `failure` whatever its exchange reports when it ends. Ignored
    /// for a stale attempt.
    func settle(attempt: Int, _ failure: NetworkError) {
        state.withLock { state in
            guard state.machine.isRunning(attempt: attempt) else { return }
            state.settledAttempt = SettledAttempt(attempt: attempt, failure: failure)
        }
    }

    /// The failure `attempt` was settled with, if any.
    func settledFailure(of attempt: Int) -> NetworkError? {
        state.withLock { state in
            state.settledAttempt.flatMap { $0.attempt == attempt ? $0.failure : nil }
        }
    }
}
