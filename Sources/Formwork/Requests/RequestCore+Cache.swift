import Foundation

// What the engine knows of the HTTP cache. The cache is a layer around the transport
// (`CachingTransport`): it looks attempts up, answers them, revalidates and stores, and marks
// each response with its source. The engine tells it how an attempt may use it (`CacheUse`) and
// keeps three rules of its own, here: which attempts ask the server, the background refresh after
// cache-then-network's cached answer, and that such an answer failing validation is dropped (the
// machine hears it with the attempt's failure and starts the next attempt).
extension RequestCore {
    /// Whether `attempt` asks the server whatever is stored (see ``CacheUse/asksServer``): the
    /// second delivery of cache-then-network, or a retry of an attempt the cache answered (a
    /// stored `503` that failed validation: asking the cache again would give the same answer).
    /// Read while the attempt is being built: the machine's latest attempt is the one before.
    func asksServer(_ use: CacheUse?, attempt: Int) -> Bool {
        guard let policy = use?.policy, attempt > 1 else { return false }
        if policy == .cacheThenNetwork { return true }
        return policy != .cacheOnly && state.withLock { $0.machine.latest?.delivery.source == .cache }
    }

    /// Whether the attempt's response is the cached first answer of cache-then-network: once it is
    /// delivered the request reloads in the background; when it fails validation it is dropped
    /// like a miss, and the network's answer, from the next attempt at once, is the one delivered
    /// (the machine's `attemptFailed` with `isCachedFirstAnswer`; the retriers are not asked:
    /// nothing failed on the network).
    static func isCacheThenNetworkAnswer(_ attempt: RequestAttempt) -> Bool {
        attempt.prepared.cache?.policy == .cacheThenNetwork && attempt.delivery.source == .cache
    }

    /// Cache-then-network's second answer: once the cached answer of `attempt` is delivered, the
    /// request reloads in the background (no load mask: the cached value is on screen). Nothing
    /// happens when that answer was dropped (see ``isCacheThenNetworkAnswer(_:)``) or the
    /// request was cancelled meanwhile.
    func refreshInBackground(after attempt: Int) {
        perform(
            state.withLock { state in
                guard state.machine.attempt == attempt else { return .none }
                return state.event { $0.reload(background: true) }
            })
    }
}
