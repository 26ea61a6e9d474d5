import Foundation

/// Carries progress from the delegate queue to the main actor, coalescing bursts: at most one
/// hop is pending, and it delivers the newest value. Values never go backwards within an attempt.
final class ProgressRelay: Sendable {
    /// A progress value and the attempt it belongs to.
    private struct Posted: Sendable {
        let progress: TransferProgress
        let attempt: Int
    }

    private let relay: MainActorRelay<Posted>

    init(deliver: @escaping @MainActor @Sendable (TransferProgress) -> Void) {
        relay = MainActorRelay(
            isStale: { latest, delivered in
                // Never backwards within an attempt, and never the same value twice.
                delivered.attempt == latest.attempt
                    && (delivered.progress.completedBytes > latest.progress.completedBytes
                        || delivered.progress == latest.progress)
            },
            deliver: { deliver($0.progress) })
    }

    /// Takes a value from any thread; schedules a main-actor hop if none is pending.
    func post(_ progress: TransferProgress, attempt: Int) {
        relay.post(Posted(progress: progress, attempt: attempt))
    }

    /// Delivers the newest value now, if it is new.
    @MainActor
    func flush() {
        relay.flush()
    }
}

extension Request {
    /// Shows the transfer's progress: upload progress for uploads, download progress otherwise.
    ///
    /// `progressable` is called on the main actor; bursts are coalesced to the newest value, values
    /// never go backwards within an attempt, and the final value (equal to the total on success)
    /// arrives before any handler chained after this hook.
    ///
    /// Chain it in the statement that makes the request, as with every hook: a data or upload
    /// request that nothing watches when its transfer begins takes the faster way through
    /// URLSession that reports no intermediate progress, so a later observer hears only the end.
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
    /// the request ends (its last value is the final progress). Ask for it in the statement that
    /// makes the request (see ``progress(_:)``).
    public var progressUpdates: AsyncStream<TransferProgress> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: TransferProgress.self, bufferingPolicy: .bufferingNewest(1))
        core.addProgressObserver { progress, _ in continuation.yield(progress) }
        core.append { _ in continuation.finish() }
        return stream
    }
}
