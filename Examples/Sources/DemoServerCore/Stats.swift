import NIOConcurrencyHelpers

/// Counters shared by every connection, read through `GET /stats`.
final class ServerStats: Sendable {
    struct Counters: Sendable {
        /// Requests received, not counting `GET /stats` itself (so two reads can be diffed).
        var requests = 0
        /// Body bytes handed to connections, by endpoint family (`"files"`, `"static"`).
        var bytesSent: [String: Int64] = [:]
        /// Body bytes received and consumed, by endpoint family (`"upload"`).
        var bytesReceived: [String: Int64] = [:]
        /// Counters for requests that carried `?tag=T`, by tag.
        var tags: [String: TagCounters] = [:]
    }

    /// What a test can read about its own requests with `GET /stats?tag=T`.
    struct TagCounters: Sendable {
        var requests = 0
        var bytesSent: Int64 = 0
        var bytesReceived: Int64 = 0
    }

    private let counters = NIOLockedValueBox(Counters())

    /// Records one complete request for `path`.
    func recordRequest(path: Substring) {
        guard path != "/stats" else { return }
        counters.withLockedValue { $0.requests += 1 }
    }

    /// Records a request that carried `?tag=tag`.
    func recordTaggedRequest(tag: String?) {
        guard let tag else { return }
        counters.withLockedValue { $0.tags[tag, default: TagCounters()].requests += 1 }
    }

    /// Records `count` body bytes sent for `family`, and for `tag` if any.
    func recordSent(_ count: Int, family: String, tag: String?) {
        counters.withLockedValue { counters in
            counters.bytesSent[family, default: 0] += Int64(count)
            if let tag {
                counters.tags[tag, default: TagCounters()].bytesSent += Int64(count)
            }
        }
    }

    /// Records `count` body bytes received for `family`, and for `tag` if any.
    func recordReceived(_ count: Int, family: String, tag: String?) {
        counters.withLockedValue { counters in
            counters.bytesReceived[family, default: 0] += Int64(count)
            if let tag {
                counters.tags[tag, default: TagCounters()].bytesReceived += Int64(count)
            }
        }
    }

    /// A consistent copy of all counters.
    var snapshot: Counters {
        counters.withLockedValue { $0 }
    }
}
