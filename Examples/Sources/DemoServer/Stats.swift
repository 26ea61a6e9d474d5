import NIOConcurrencyHelpers

/// Counters shared by every connection, read through `GET /stats`.
final class ServerStats: Sendable {
    struct Counters: Sendable {
        /// Requests received, not counting `GET /stats` itself (so two reads can be diffed).
        var requests = 0
    }

    private let counters = NIOLockedValueBox(Counters())

    /// Records one complete request for `path`.
    func recordRequest(path: Substring) {
        guard path != "/stats" else { return }
        counters.withLockedValue { $0.requests += 1 }
    }

    /// A consistent copy of all counters.
    var snapshot: Counters {
        counters.withLockedValue { $0 }
    }
}
