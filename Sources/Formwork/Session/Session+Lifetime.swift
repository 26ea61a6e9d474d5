import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// A session's lifetime: the requests it runs, and the end of it (`invalidate()`,
// `invalidateAndCancel()`, or the last reference dropped). A dropped session releases its
// transport by itself (the built-in one invalidates its `URLSession` when released); these calls
// are for an app that wants it now, and a clear error for whatever is sent afterwards.
extension Session {
    /// What the session is running and whether it was invalidated.
    struct Lifetime {
        /// The requests started and not ended yet (attempts, retries and reconnections included).
        var running: [ObjectIdentifier: RequestCore] = [:]
        /// Set by `invalidate()` or `invalidateAndCancel()`: no new request starts.
        var ending: Ending?
        /// Whether the transport was let go (once nothing ran any more after the invalidation).
        var isReleased = false
    }

    /// How an invalidation ends what runs.
    enum Ending {
        /// Requests that run go on to their end (`invalidate()`).
        case finishing
        /// Requests that run are cancelled (`invalidateAndCancel()`).
        case cancelling
    }

    /// Lets the requests that run finish, then releases the session's transport (the built-in
    /// one invalidates its `URLSession`: its connections and threads go). Returns at once.
    ///
    /// A request that started before the call runs to its end, retries and reconnections
    /// included. Any request started afterwards fails with a
    /// ``NetworkError/Kind/sessionInvalidated`` error, without being sent. A session that is no
    /// longer referenced releases everything by itself: call this when you want it now, or want
    /// late requests refused. It has no effect on ``Session/default``.
    public func invalidate() {
        end(.finishing)
    }

    /// Cancels every request the session runs (their handlers and waiters get a
    /// ``NetworkError/Kind/cancelled`` error), then releases the session's transport, as
    /// ``invalidate()`` does. Any request started afterwards fails with a
    /// ``NetworkError/Kind/sessionInvalidated`` error. It has no effect on ``Session/default``.
    public func invalidateAndCancel() {
        end(.cancelling)
    }

    private func end(_ ending: Ending) {
        guard self !== Session.default else { return }
        let (running, releasesNow) = lifetime.withLock { lifetime -> ([RequestCore], Bool) in
            if lifetime.ending != .cancelling { lifetime.ending = ending }
            let releasesNow = lifetime.running.isEmpty && !lifetime.isReleased
            if releasesNow { lifetime.isReleased = true }
            return (ending == .cancelling ? Array(lifetime.running.values) : [], releasesNow)
        }
        for core in running { core.cancel() }
        if releasesNow { releaseTransport(cancelling: ending == .cancelling) }
    }

    /// Counts `core` as running, unless the session was invalidated. Idempotent for a request
    /// that runs already (its next attempt). Called under the request's lock (lock order: a
    /// request's, then the session's `lifetime`; nothing calls into a request under the latter).
    /// - Returns: `nil` when admitted, or the error the request must fail with.
    func admit(_ core: RequestCore) -> NetworkError? {
        let admitted = lifetime.withLock { lifetime -> Bool in
            let id = ObjectIdentifier(core)
            if lifetime.running[id] != nil { return true }
            guard lifetime.ending == nil else { return false }
            lifetime.running[id] = core
            return true
        }
        return admitted ? nil : Self.invalidatedError
    }

    /// `core` ended (its outcome is recorded): it no longer runs. The last request to end after an
    /// invalidation releases the transport.
    func requestEnded(_ core: RequestCore) {
        let release = lifetime.withLock { lifetime -> Ending? in
            guard lifetime.running.removeValue(forKey: ObjectIdentifier(core)) != nil,
                let ending = lifetime.ending, lifetime.running.isEmpty, !lifetime.isReleased
            else { return nil }
            lifetime.isReleased = true
            return ending
        }
        if let release { releaseTransport(cancelling: release == .cancelling) }
    }

    /// Whether the transport was let go after an invalidation.
    var isReleased: Bool { lifetime.withLock { $0.isReleased } }

    /// The error of a request started after the session was invalidated.
    static let invalidatedError = NetworkError(
        .sessionInvalidated,
        failureReason:
            "The session was invalidated (invalidate() or invalidateAndCancel()); it sends no new request.")
}

/// What an invalidated session hands out as its transport: every exchange fails at once with
/// ``NetworkError/Kind/sessionInvalidated`` (nothing is made on a released `URLSession`, which
/// Apple's URLSession answers with an exception).
struct InvalidatedTransport: Transport {
    func makeTask(for request: TransportRequest, events: any TransportEvents) -> any TransportTask {
        FailedTransportTask(error: Session.invalidatedError, events: events)
    }
}
