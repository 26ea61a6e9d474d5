import Foundation

/// The bounded queue between the session's delegate queue (which appends) and the one reader of a
/// stream (which waits for items). Appending never blocks: when the reader falls behind by more
/// than `limit` bytes, `append` fails and the stream ends with that error after the reader has
/// had everything appended before it.
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
    }

    /// The most payload bytes held for the reader.
    let limit: Int
    private let state = Protected(State())

    init(limit: Int) {
        self.limit = limit
    }

    /// Bytes waiting for the reader.
    var byteCount: Int { state.withLock { $0.bytes } }

    /// Appends an item for the reader.
    /// - Throws: ``NetworkError`` when the reader is more than `limit` bytes behind.
    func append(_ item: StreamItem, pendingBytes: Int = 0) throws(NetworkError) {
        typealias Accepted = (CheckedContinuation<Void, Never>?, [@Sendable () -> Void])
        let accepted = state.withLock { state -> Result<Accepted, NetworkError> in
            let total = state.bytes + item.byteCount + pendingBytes
            guard total <= limit else { return .failure(Self.overflow(total, limit: limit)) }
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

    /// The error a stream ends with when its reader falls behind.
    static func overflow(_ bytes: Int, limit: Int) -> NetworkError {
        NetworkError(
            .streamBufferOverflow,
            failureReason:
                "The stream's reader fell behind: \(bytes) bytes would be waiting, over the limit of \(limit) bytes."
        )
    }

    /// The request ended; the reader gets the items still queued, then this end.
    func finish(_ error: NetworkError?) {
        let waiter = state.withLock { state in
            state.end = .some(error)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// A new attempt starts: after a reload, the buffer takes items again.
    func reopen() {
        state.withLock { state in
            guard state.end != nil else { return }
            state.end = nil
            state.hasItemInRun = false
        }
    }

    /// Calls `listener` (on the delegate queue) when a run produces its first item; at once if the
    /// current run already did.
    func onFirstItem(_ listener: @escaping @Sendable () -> Void) {
        let now = state.withLock { state in
            state.firstItemListeners.append(listener)
            return state.hasItemInRun
        }
        if now { listener() }
    }

    /// Waits for the next item or the end. `isRequestDone` tells an end that still stands from one
    /// a reload is about to replace (the reader then waits for the new run).
    func next(isRequestDone: @escaping @Sendable () -> Bool) async -> Next {
        while true {
            if let next = state.withLock({ Self.take(&$0, isRequestDone: isRequestDone) }) { return next }
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

    private static func take(_ state: inout State, isRequestDone: () -> Bool) -> Next? {
        if state.head < state.items.count {
            let item = state.items[state.head]
            state.head += 1
            state.bytes -= item.byteCount
            if state.head == state.items.count {
                state.items.removeAll(keepingCapacity: state.items.count < 1024)
                state.head = 0
            } else if state.head >= 1024 {
                state.items.removeFirst(state.head)
                state.head = 0
            }
            return .item(item)
        }
        if let end = state.end, isRequestDone() { return .end(end) }
        return nil
    }
}
