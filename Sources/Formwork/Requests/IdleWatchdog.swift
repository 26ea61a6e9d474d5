import Foundation

/// Watches the idle timeouts Formwork enforces itself (see ``IdleTimeout``): every running attempt
/// whose transport does not enforce its timeout precisely, with one polling task for all of them.
///
/// A task and a timer per attempt cost about as much as the rest of a small request over a fast
/// transport (measured over AsyncHTTPClient on Linux: 85 µs of CPU and 7 context switches per
/// sequential request). Here an attempt costs an entry in a table; the polling task runs only
/// while the table is not empty, every ``IdleTimeout/checkInterval`` (the shortest of the
/// watched ones), so each timeout fires within one interval of its deadline, as before.
final class IdleWatchdog: Sendable {
    /// The watchdog of every session.
    static let shared = IdleWatchdog()

    /// One watched attempt.
    private struct Watch: Sendable {
        var timeout: IdleTimeout
        /// The attempt's activity now, or `nil` once the attempt no longer runs (the watch ends).
        let activity: @Sendable () -> IdleTimeout.Activity?
        /// Called once, when the attempt stayed idle for its timeout (the watch ends).
        let expire: @Sendable () -> Void
    }

    private struct State {
        var watches: [UInt64: Watch] = [:]
        var nextID: UInt64 = 0
        /// The polling task while anything is watched (``poller``), which one it is, and its interval.
        var poller: Task<Void, Never>?
        var pollerID: UInt64 = 0
        var interval: TimeInterval = .infinity
    }

    private let state = Protected(State())

    /// Watches an attempt that starts now until it no longer runs or stays idle for `seconds`.
    /// - Parameters:
    ///   - seconds: The idle timeout.
    ///   - activity: The attempt's activity, or `nil` once it no longer runs. Called without any
    ///     lock of the watchdog held.
    ///   - expire: Called once if the attempt stays idle for `seconds`, without any lock held.
    func watch(
        seconds: TimeInterval, activity: @escaping @Sendable () -> IdleTimeout.Activity?,
        expire: @escaping @Sendable () -> Void
    ) {
        let watch = Watch(
            timeout: IdleTimeout(seconds: seconds, now: Date()), activity: activity, expire: expire)
        let interval = watch.timeout.checkInterval
        state.withLock { state in
            state.watches[state.nextID] = watch
            state.nextID += 1
            guard state.poller == nil || interval < state.interval else { return }
            // None yet, or one that polls too seldom for this timeout: a new one replaces it.
            state.poller?.cancel()
            state.pollerID += 1
            state.interval = interval
            let id = state.pollerID
            state.poller = Task { await self.poll(every: interval, as: id) }
        }
    }

    /// The polling task's loop: ends when nothing is left to watch or another poller replaced it.
    private func poll(every interval: TimeInterval, as id: UInt64) async {
        while true {
            await sleep(seconds: interval)
            guard !Task.isCancelled, tick(as: id) else { return }
        }
    }

    /// Checks every watch once.
    /// - Returns: `false` when this poller ends: nothing left to watch, or it was replaced.
    private func tick(as id: UInt64) -> Bool {
        guard let watches = state.withLock({ $0.pollerID == id ? $0.watches : nil }) else { return false }
        let now = Date()
        var ended: [UInt64] = []
        var idle: [UInt64] = []
        var updated: [(UInt64, IdleTimeout)] = []
        for (key, var watch) in watches {
            guard let activity = watch.activity() else {
                ended.append(key)
                continue
            }
            if watch.timeout.check(activity, now: now) {
                idle.append(key)
            } else {
                updated.append((key, watch.timeout))
            }
        }
        let (expired, goesOn) = state.withLock { state -> ([Watch], Bool) in
            for key in ended { state.watches[key] = nil }
            for (key, timeout) in updated { state.watches[key]?.timeout = timeout }
            // Only a watch this tick removes expires: never twice.
            let expired = idle.compactMap { state.watches.removeValue(forKey: $0) }
            guard state.pollerID == id else { return (expired, false) }
            guard state.watches.isEmpty else { return (expired, true) }
            state.poller = nil
            state.interval = .infinity
            return (expired, false)
        }
        for watch in expired { watch.expire() }
        return goesOn
    }
}
