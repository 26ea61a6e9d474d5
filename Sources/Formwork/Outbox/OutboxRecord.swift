import Foundation

/// One pending request of an ``Outbox`` as it is kept on disk: everything needed to send it
/// again after a restart, and nothing of the session (adapters, authenticators and the session's
/// default headers run at send time, so a token refreshed while the request waited is used).
struct OutboxRecord: Codable, Sendable, Equatable {
    /// Where the body of a pending request is.
    enum Body: Codable, Sendable, Equatable {
        /// No body.
        case none
        /// The bytes, kept in the entry file itself (small bodies).
        case inline(Data)
        /// A file in the outbox's `bodies` folder, named by the request's id, of `size` bytes (a
        /// copy of the file the app gave, or a large data body written out).
        case file(size: Int64)
    }

    /// One header field, as sent.
    struct Field: Codable, Sendable, Equatable {
        var name: String
        var value: String
    }

    /// The request's identity, also the name of its files.
    var id: UUID
    /// The order of enqueue across the whole outbox: 1, 2, 3… (assigned by ``OutboxStore``).
    var sequence: UInt64
    /// The lane: requests of one lane are sent one at a time, in ``sequence`` order.
    var lane: String
    /// The app's label for the request, handed back with its result.
    var tag: String?
    /// The `Idempotency-Key` sent with every attempt, made at enqueue time.
    var idempotencyKey: String
    /// The method, e.g. `POST`.
    var method: String
    /// The absolute URL, query included.
    var url: String
    /// The form's header fields (the body's `Content-Type` included), in order.
    var headers: [Field]
    /// The body.
    var body: Body
    /// When it was enqueued.
    var enqueuedAt: Date
    /// When it stops being worth sending; `nil`: never.
    var expiresAt: Date?
    /// The form's timeout (seconds without progress), if it set one (absent in entries written
    /// before it was kept: they decode as `nil`).
    var timeout: TimeInterval? = nil
}
