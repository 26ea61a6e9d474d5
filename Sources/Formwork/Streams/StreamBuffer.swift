import Foundation

/// The bounded queue between the transport (which appends, on its delivery thread) and the one
/// reader of a stream (which waits for items). When the reader falls more than `limit` bytes
/// behind, ``StreamBufferPolicy`` decides: the appending thread waits until the reader has taken
/// half of it (`slowDown`: the transport reads nothing meanwhile, so the server slows down), the
/// oldest items are dropped (`dropOldest`), or `append` fails and the stream ends with that
/// error after the reader has had everything appended before it (`fail`).
final class StreamBuffer: Sendable {
    /// What the reader gets next.
    enum Next: Sendable {
        case item(StreamItem)
        /// The request ended: `nil` when it finished cleanly.
        case end(NetworkError?)
    }

    private struct State {
        var items: [StreamItem] = []
        /// Index of the next item to hand out (the array is compacted as the reader advances).
        var head = 0
        var bytes = 0
        var end: NetworkError??
        var waiter: CheckedContinuation<Void, Never>?
        /// Whether the current run (start or reload until its end) produced an item yet.
        var hasItemInRun = false
        var firstItemListeners: [@Sendable () -> Void] = []
        /// Whether an appending thread waits for the reader (`slowDown`).
        var producerWaits = false
        /// Items dropped for a reader behind (`dropOldest`).
        var dropped = 0
    }

    /// The most payload bytes held for the reader.
    let limit: Int
    /// What happens when the reader falls more than `limit` bytes behind.
    let policy: StreamBufferPolicy
    private let state = Protected(State())
    /// Where an appending thread waits for the reader to make room (`slowDown`). Lock order:
    /// `room`, then `state`.
    private let room = NSCondition()

    init(limit: Int, policy: StreamBufferPolicy = .slowDown) {
        self.limit = limit
        self.policy = policy
    }

    /// Bytes waiting for the reader.
    var byteCount: Int { state.withLock { $0.bytes } }
    /// Whether an appending thread waits for the reader to make room (`slowDown`).
    var isProducerWaiting: Bool { state.withLock { $0.producerWaits } }
    /// Items dropped because the reader was behind (`dropOldest`).
    var droppedCount: Int { state.withLock { $0.dropped } }
    /// Items waiting for the reader (changes of the connection not counted).
    var itemCount: Int {
        state.withLock { state in state.items[state.head...].filter { !$0.isConnectionChange }.count }
    }

    /// Appends an item for the reader. With `slowDown`, waits while the reader is more than
    /// `limit` bytes behind (until half is left, or the stream ends).
    /// - Parameter pendingBytes: Bytes of an item still being parsed, which count as held.
    /// - Throws: ``NetworkError`` when the reader is more than `limit` bytes behind (`fail`), or
    ///   the item alone is larger than `limit` (every policy).
    func append(_ item: StreamItem, pendingBytes: Int = 0) throws(NetworkError) {
        let size = item.byteCount + pendingBytes
        guard size <= limit else { throw Self.overflow(size, limit: limit) }
        if policy == .slowDown { waitForRoom(for: size) }
        typealias Accepted = (CheckedContinuation<Void, Never>?, [@Sendable () -> Void])
        let accepted = state.withLock { state -> Result<Accepted, NetworkError> in
            guard state.end == nil else { return .success((nil, [])) }  // ended meanwhile: nobody reads it
            let total = state.bytes + size
            if total > limit {
                switch policy {
                case .fail: return .failure(Self.overflow(total, limit: limit))
                case .dropOldest, .slowDown: Self.dropOldest(&state, toFit: size, limit: limit)
                }
            }
            state.items.append(item)
            state.bytes += item.byteCount
            defer { state.waiter = nil }
            var listeners: [@Sendable () -> Void] = []
            if !state.hasItemInRun {
                state.hasItemInRun = true
                listeners = state.firstItemListeners
            }
            return .success((state.waiter, listeners))
        }
        let (waiter, listeners) = try accepted.get()
        waiter?.resume()
        for listener in listeners { listener() }
    }

    /// Blocks the appending thread while `size` more bytes would not fit, until the reader has
    /// brought what it holds down to half the limit, or the stream ended. A delivery queue waiting
    /// here is told it waits on purpose (see ``DeliveryQueue/waitingForReader(_:)``).
    private func waitForRoom(for size: Int) {
        room.lock()
        defer { room.unlock() }
        guard !hasRoom(for: size, lowWater: false) else { return }
        DeliveryQueue.waitingForReader {
            repeat { room.wait() } while !hasRoom(for: size, lowWater: true)
        }
    }

    /// Appends a change of the connection for the reader, in order with the items: it costs
    /// nothing against the limit and is not a first item, so it never waits and never fails. Kept
    /// only while the stream runs.
    func mark(_ change: StreamConnectionState) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.end == nil else { return nil }
            state.items.append(.connection(change))
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Whether `size` more bytes may go in now: the stream ended (nobody reads any more), the
    /// reader holds nothing, or they fit under the limit (and, once waiting, the reader is down to
    /// half of it). When not, marks the producer waiting in the same locked step, so the reader's
    /// next take wakes it.
    private func hasRoom(for size: Int, lowWater: Bool) -> Bool {
        state.withLock { state in
            let fits =
                state.end != nil || state.bytes == 0
                || (state.bytes + size <= limit && (!lowWater || state.bytes <= limit / 2))
            state.producerWaits = !fits
            return fits
        }
    }

    /// Wakes an appending thread that waits for room, when the reader is down to half the limit
    /// (or `always`, at the end).
    private func wakeProducer(always: Bool = false) {
        let wakes = state.withLock { state in
            state.producerWaits && (always || state.end != nil || state.bytes <= limit / 2)
        }
        guard wakes else { return }
        room.lock()
        room.broadcast()
        room.unlock()
    }

    /// Drops the oldest unread items until `size` more bytes fit under `limit`. Changes of the
    /// connection among them are kept (they cost nothing), in order, ahead of what is left.
    private static func dropOldest(_ state: inout State, toFit size: Int, limit: Int) {
        var changes: [StreamItem] = []
        while state.head < state.items.count, state.bytes + size > limit {
            let item = state.items[state.head]
            state.head += 1
            if item.isConnectionChange {
                changes.append(item)
            } else {
                state.bytes -= item.byteCount
                state.dropped += 1
            }
        }
        state.head -= changes.count
        for (offset, change) in changes.enumerated() { state.items[state.head + offset] = change }
        compact(&state)
    }

    /// The error a stream ends with when its reader falls behind (`fail`), or when one item is
    /// larger than the limit.
    static func overflow(_ bytes: Int, limit: Int) -> NetworkError {
        NetworkError(
            .streamBufferOverflow,
            failureReason:
                "The stream's reader fell behind: \(bytes) bytes would be waiting, over the limit of \(limit) bytes."
        )
    }

    /// The request ended; the reader gets the items still queued, then this end. An appending
    /// thread waiting for room goes on (and drops what it had).
    func finish(_ error: NetworkError?) {
        let waiter = state.withLock { state in
            state.end = .some(error)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
        wakeProducer(always: true)
    }

    /// The reader is gone (it left its loop, or its task was cancelled): nothing is kept for it
    /// any more, and a transport waiting for it goes on at once, before the request is cancelled
    /// (over URLSession on Linux, cancelling waits for the very queue a waiting transport holds).
    func abandon() {
        state.withLock { state in
            state.items.removeAll()
            state.head = 0
            state.bytes = 0
            if state.end == nil { state.end = .some(NetworkError.cancelled(request: nil, response: nil)) }
        }
        wakeProducer(always: true)
    }

    /// A new attempt starts: after a reload, the buffer takes items again.
    func reopen() {
        state.withLock { state in
            guard state.end != nil else { return }
            state.end = nil
            state.hasItemInRun = false
        }
    }

    /// Calls `listener` (on the transport's delivery thread) when a run produces its first item;
    /// at once if the current run already did.
    func onFirstItem(_ listener: @escaping @Sendable () -> Void) {
        let now = state.withLock { state in
            state.firstItemListeners.append(listener)
            return state.hasItemInRun
        }
        if now { listener() }
    }

    /// Waits for the next item or the end. `isRequestDone` tells an end that still stands from one
    /// a reload is about to replace (the reader then waits for the new run). It reads the
    /// request's state (under the request's lock) and is asked under this buffer's lock, so that
    /// the reader's check and its wait are one step against ``finish(_:)``'s wake-up: lock order
    /// this buffer's, then the request's (the request calls into its buffer only outside its lock).
    func next(isRequestDone: @escaping @Sendable () -> Bool) async -> Next {
        while true {
            if let next = state.withLock({ Self.take(&$0, isRequestDone: isRequestDone, limit: limit) }) {
                if case .item = next { wakeProducer() }
                return next
            }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if state.head < state.items.count { return true }
                    if state.end != nil, isRequestDone() { return true }
                    state.waiter?.resume()  // a second reader waiting at once: let the older one look again
                    state.waiter = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        }
    }

    private static func take(_ state: inout State, isRequestDone: () -> Bool, limit: Int) -> Next? {
        if state.head < state.items.count {
            let item = state.items[state.head]
            state.head += 1
            state.bytes -= item.byteCount
            compact(&state)
            return .item(item)
        }
        if let end = state.end, isRequestDone() { return .end(end) }
        return nil
    }

    /// Frees the slots of items already handed out, now and then (never one by one).
    private static func compact(_ state: inout State) {
        if state.head == state.items.count {
            state.items.removeAll(keepingCapacity: state.items.count < 1024)
            state.head = 0
        } else if state.head >= 1024 {
            state.items.removeFirst(state.head)
            state.head = 0
        }
    }
}
