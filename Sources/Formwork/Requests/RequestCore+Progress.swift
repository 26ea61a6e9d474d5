import Foundation

// Progress: one value per attempt that never goes backwards, fanned out to observers.
extension RequestCore {
    /// An observer receives each progress value with its attempt number, on the session's
    /// delegate queue: it must return quickly (the body piles up in memory otherwise).
    typealias ProgressObserver = @Sendable (TransferProgress, _ attempt: Int) -> Void

    /// Adds a progress observer, then starts the request (so the first attempt's task reports
    /// progress as it moves). It first receives the current progress, if any.
    func addProgressObserver(_ observer: @escaping ProgressObserver) {
        let current = state.withLock { state -> (TransferProgress, Int)? in
            state.progressObservers.append(observer)
            return state.progress.map { ($0, state.machine.attempt) }
        }
        start()
        if let (progress, attempt) = current { observer(progress, attempt) }
    }

    /// The fewest new bytes worth telling observers about (besides the first and the last value):
    /// per-chunk notifications would slow the delegate queue, which has no back-pressure.
    static func notificationStep(forTotal total: Int64?) -> Int64 {
        max(256 * 1024, (total ?? 0) / 1000)
    }

    /// Records progress for `attempt` unless it is stale or would go backwards. Observers hear the
    /// first value, then at most one value per ``notificationStep(forTotal:)`` bytes, and always
    /// a value that completes the total.
    func updateProgress(_ progress: TransferProgress, attempt: Int) {
        let observers = state.withLock { state -> [ProgressObserver]? in
            guard state.machine.acceptsProgress(attempt: attempt) else { return nil }
            if let current = state.progress, current.completedBytes > progress.completedBytes { return nil }
            let previous = state.progress
            state.progress = progress
            guard let notified = state.notifiedProgress, notified.totalBytes == progress.totalBytes,
                previous != nil
            else {
                state.notifiedProgress = progress
                return state.progressObservers
            }
            let step = Self.notificationStep(forTotal: progress.totalBytes)
            guard progress.completedBytes - notified.completedBytes >= step || progress.isComplete,
                progress != notified
            else { return nil }
            state.notifiedProgress = progress
            return state.progressObservers
        }
        for observer in observers ?? [] { observer(progress, attempt) }
    }
}
