import Foundation

// Progress: one value per attempt that never goes backwards, fanned out to observers.
extension RequestCore {
    /// An observer receives each progress value with its attempt number, on the session's
    /// delegate queue: it must return quickly (the body piles up in memory otherwise).
    typealias ProgressObserver = @Sendable (TransferProgress, _ attempt: Int) -> Void

    /// Adds a progress observer. It first receives the current progress, if any.
    func addProgressObserver(_ observer: @escaping ProgressObserver) {
        start()
        let current = state.withLock { state -> (TransferProgress, Int)? in
            state.progressObservers.append(observer)
            return state.progress.map { ($0, state.lifecycle.attempt) }
        }
        if let (progress, attempt) = current { observer(progress, attempt) }
    }

    /// Records progress for `attempt` unless it is stale or would go backwards.
    func updateProgress(_ progress: TransferProgress, attempt: Int) {
        let observers = state.withLock { state -> [ProgressObserver]? in
            guard state.lifecycle.attempt == attempt, !state.lifecycle.isDone else { return nil }
            if let current = state.progress, current.completedBytes > progress.completedBytes { return nil }
            state.progress = progress
            return state.progressObservers
        }
        for observer in observers ?? [] { observer(progress, attempt) }
    }
}

/// Carries progress from the delegate queue to the main actor, coalescing bursts: at most one
/// hop is pending, and it delivers the newest value. Values never go backwards within an attempt.
final class ProgressRelay: Sendable {
    private struct State {
        var latest: (TransferProgress, Int)?
        var delivered: (TransferProgress, Int)?
        var hopScheduled = false
    }

    private let state = Protected(State())
    private let deliver: @MainActor @Sendable (TransferProgress) -> Void

    init(deliver: @escaping @MainActor @Sendable (TransferProgress) -> Void) {
        self.deliver = deliver
    }

    /// Takes a value from any thread; schedules a main-actor hop if none is pending.
    func post(_ progress: TransferProgress, attempt: Int) {
        let schedule = state.withLock { state -> Bool in
            state.latest = (progress, attempt)
            guard !state.hopScheduled else { return false }
            state.hopScheduled = true
            return true
        }
        if schedule {
            Task { @MainActor in self.flush() }
        }
    }

    /// Delivers the newest value now, if it is new.
    @MainActor
    func flush() {
        let value = state.withLock { state -> TransferProgress? in
            state.hopScheduled = false
            guard let (latest, attempt) = state.latest else { return nil }
            if let (delivered, deliveredAttempt) = state.delivered, deliveredAttempt == attempt,
                delivered.completedBytes > latest.completedBytes || delivered == latest
            {
                return nil
            }
            state.delivered = (latest, attempt)
            return latest
        }
        if let value { deliver(value) }
    }
}

extension Request {
    /// Shows the transfer's progress: upload progress for uploads, download progress otherwise.
    ///
    /// `progressable` is called on the main actor; bursts are coalesced to the newest value, values
    /// never go backwards within an attempt, and the final value (equal to the total on success)
    /// arrives before any handler chained after this hook.
    /// - Parameter progressable: What shows the progress.
    /// - Returns: The request.
    @MainActor
    @discardableResult
    public func progress(_ progressable: some Progressable) -> Self {
        let relay = ProgressRelay { progressable.progress($0) }
        core.addProgressObserver { relay.post($0, attempt: $1) }
        core.append { _ in await MainActor.run { relay.flush() } }
        return self
    }

    /// Progress updates for async callers: upload progress for uploads, download progress
    /// otherwise. The sequence keeps only the newest value when the reader is slow, and ends when
    /// the request ends (its last value is the final progress).
    public var progressUpdates: AsyncStream<TransferProgress> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: TransferProgress.self, bufferingPolicy: .bufferingNewest(1))
        core.addProgressObserver { progress, _ in continuation.yield(progress) }
        core.append { _ in continuation.finish() }
        return stream
    }
}
