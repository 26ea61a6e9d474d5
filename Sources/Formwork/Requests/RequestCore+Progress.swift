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
            return state.machine.latest?.progress.map { ($0, state.machine.attempt) }
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
        let observers = state.withLock { $0.recordProgress(progress, attempt: attempt) }
        for observer in observers ?? [] { observer(progress, attempt) }
    }
}

extension RequestCore.State {
    /// The locked step of ``RequestCore/updateProgress(_:attempt:)``, for callers that already hold
    /// the lock for the same event.
    /// - Returns: The observers to tell about `progress` (outside the lock), or nil for none.
    mutating func recordProgress(
        _ progress: TransferProgress, attempt: Int
    ) -> [RequestCore.ProgressObserver]? {
        guard machine.acceptsProgress(attempt: attempt) else { return nil }
        let notifies =
            machine.updateLatest { values -> Bool in
                guard values.number == attempt else { return false }
                if let current = values.progress, current.completedBytes > progress.completedBytes {
                    return false
                }
                let previous = values.progress
                values.progress = progress
                guard let notified = values.notifiedProgress, notified.totalBytes == progress.totalBytes,
                    previous != nil
                else {
                    values.notifiedProgress = progress
                    return true
                }
                let step = RequestCore.notificationStep(forTotal: progress.totalBytes)
                guard progress.completedBytes - notified.completedBytes >= step || progress.isComplete,
                    progress != notified
                else { return false }
                values.notifiedProgress = progress
                return true
            } ?? false
        return notifies ? progressObservers : nil
    }

    /// On success, the last progress update observers hear must equal the total (a chunked body
    /// has none until now; a throttled last update may not have been passed on): records it.
    /// - Returns: The final value and the observers to tell (outside the lock), or nil for none.
    mutating func recordFinalProgress(
        attempt: Int, direction: RequestCore.ProgressDirection
    ) -> (TransferProgress, [RequestCore.ProgressObserver])? {
        let final = machine.updateRunning(attempt: attempt) { values -> TransferProgress? in
            if values.progress == nil, direction == .upload, let sent = values.prepared.bodyLength {
                // No progress came while sending (a transport that reports the whole exchange
                // at its end): the whole body was sent.
                values.bytesSent = max(values.bytesSent, sent)
                values.progress = TransferProgress(completedBytes: sent, totalBytes: sent)
            }
            guard let progress = values.progress else { return nil }
            let final = TransferProgress(
                completedBytes: progress.completedBytes, totalBytes: progress.completedBytes)
            if progress == final, values.notifiedProgress == final { return nil }
            values.notifiedProgress = nil  // so that the final value is passed on
            return final
        }
        guard let final = final ?? nil, let observers = recordProgress(final, attempt: attempt) else {
            return nil
        }
        return (final, observers)
    }
}
