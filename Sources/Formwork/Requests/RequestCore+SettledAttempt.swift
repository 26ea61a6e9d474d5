import Foundation

// Attempts failed on a transport's question: the exchange's own end still runs the one normal
// completion path (validation, retriers, handlers), which reads the settled failure instead of
// whatever the transport reports (an unfollowed redirect's response).
extension RequestCore {
    /// Attempt `attempt` fails with `failure` whatever its exchange reports when it ends. Ignored
    /// for a stale attempt.
    func settle(attempt: Int, _ failure: NetworkError) {
        state.withLock { state in
            state.machine.updateRunning(attempt: attempt) { $0.settledFailure = failure }
        }
    }
}
