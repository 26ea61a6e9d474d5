import Foundation

/// The one throttle of UI updates: takes values from any thread and hands them to the main actor,
/// coalesced. At most one hop to the main actor is pending at a time; values posted meanwhile are
/// merged into the pending one (by default the newest wins). With a `minimumInterval`, deliveries
/// are at least that far apart, so a fast source changes the UI at most once per interval; the
/// last value is never lost (a pending hop always delivers it, and ``flush()`` delivers it now).
///
/// The progress hooks use it with no interval (one delivery per main-actor turn); a stream that
/// drives a ``RequestModel`` uses it with a frame's worth (``frameInterval``).
final class MainActorRelay<Value: Sendable>: Sendable {
    private struct State {
        var pending: Value?
        var delivered: Value?
        var hopScheduled = false
        /// When the last value was delivered, in nanoseconds of system uptime.
        var lastDelivery: UInt64?
    }

    /// A frame's worth at 60 frames per second.
    static var frameInterval: TimeInterval { 1.0 / 60 }

    private let state = Protected(State())
    private let minimumInterval: TimeInterval
    private let merge: @Sendable (_ pending: Value?, _ new: Value) -> Value
    private let isStale: @Sendable (_ latest: Value, _ delivered: Value) -> Bool
    private let deliver: @MainActor @Sendable (Value) -> Void

    /// Creates a relay.
    /// - Parameters:
    ///   - minimumInterval: The least time between two deliveries; 0 for one per main-actor turn.
    ///   - merge: Folds a new value into the pending one (`nil` when none is pending).
    ///   - isStale: `true` when a value must not be delivered after the last delivered one.
    ///   - deliver: Runs on the main actor with each delivered value.
    init(
        minimumInterval: TimeInterval = 0,
        merge: @escaping @Sendable (_ pending: Value?, _ new: Value) -> Value = { $1 },
        isStale: @escaping @Sendable (_ latest: Value, _ delivered: Value) -> Bool = { _, _ in false },
        deliver: @escaping @MainActor @Sendable (Value) -> Void
    ) {
        self.minimumInterval = minimumInterval
        self.merge = merge
        self.isStale = isStale
        self.deliver = deliver
    }

    /// Takes a value from any thread; schedules a main-actor hop if none is pending.
    func post(_ value: Value) {
        let schedule = state.withLock { state -> Bool in
            state.pending = merge(state.pending, value)
            guard !state.hopScheduled else { return false }
            state.hopScheduled = true
            return true
        }
        if schedule {
            // The one hop to the main actor, coalesced: at most one is pending.
            Task { @MainActor in await self.hop() }
        }
    }

    @MainActor
    private func hop() async {
        if minimumInterval > 0 {
            let wait = state.withLock { state -> TimeInterval in
                guard let last = state.lastDelivery else { return 0 }
                let elapsed = Double(Self.now() &- last) / 1_000_000_000
                return minimumInterval - elapsed
            }
            await sleep(seconds: wait)
        }
        flush()
    }

    /// Delivers the pending value now, if there is one and it is not stale.
    @MainActor
    func flush() {
        let value = state.withLock { state -> Value? in
            state.hopScheduled = false
            guard let latest = state.pending else { return nil }
            state.pending = nil
            if let delivered = state.delivered, isStale(latest, delivered) { return nil }
            state.delivered = latest
            state.lastDelivery = Self.now()
            return latest
        }
        if let value { deliver(value) }
    }

    private static func now() -> UInt64 {
        DispatchTime.now().uptimeNanoseconds
    }
}
