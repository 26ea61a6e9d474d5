import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Outbox {
    /// A request in the outbox, as ``Outbox/pending()`` lists it and a ``Delivery`` names it.
    public struct Entry: Sendable, Hashable, Identifiable {
        /// The request's id, given when it was enqueued.
        public let id: UUID
        /// The lane it is sent in.
        public let lane: String
        /// The app's label for it, if it gave one.
        public let tag: String?
        /// The method, e.g. `.post`.
        public let method: HTTPMethod
        /// The URL.
        public let url: String
        /// The `Idempotency-Key` sent with every attempt.
        public let idempotencyKey: String
        /// When it was enqueued.
        public let enqueuedAt: Date
        /// When it stops being worth sending, if ever.
        public let expiresAt: Date?

        init(_ record: OutboxRecord) {
            id = record.id
            lane = record.lane
            tag = record.tag
            method = HTTPMethod(rawValue: record.method)
            url = record.url
            idempotencyKey = record.idempotencyKey
            enqueuedAt = record.enqueuedAt
            expiresAt = record.expiresAt
        }
    }

    /// How a request of the outbox ended: its final answer, once it has left the outbox.
    public struct Delivery: Sendable {
        /// The request.
        public let entry: Entry
        /// The body of the success, or why the request ended without one: a final failure
        /// (see ``Options/isPermanent``), ``NetworkError/Reason/expired``, or a cancel
        /// (``NetworkError/isCancelled``) from ``Outbox/cancel(_:)``.
        public let result: Result<Data, NetworkError>
        /// The response of the last attempt, if one arrived.
        public let response: HTTPURLResponse?
        /// How many attempts the outbox made in this process (a request picked up after a
        /// restart counts from there). A session's own retries within one attempt are not
        /// counted.
        public let attempts: Int
        /// The body of the last attempt's response, failures included (for the messages).
        let body: Data?
    }

    /// What the outbox is doing, for a screen: how many requests wait and why.
    public struct Status: Sendable, Equatable {
        /// What the outbox is doing.
        public enum Phase: Sendable, Equatable {
            /// Nothing to send.
            case idle
            /// A request is on its way.
            case sending
            /// The last attempt failed (no network, or the server asked to wait): the next one
            /// starts at the date, or sooner when the network comes back or
            /// ``Outbox/retryNow()`` is called.
            case waiting(until: Date)
            /// ``Outbox/close()`` was called.
            case closed
        }

        /// How many requests are pending.
        public var pendingCount: Int
        /// What the outbox is doing.
        public var phase: Phase
    }
}
