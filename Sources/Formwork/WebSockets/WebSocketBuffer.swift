import Foundation

/// The bounded queue between a socket's connection (which receives messages only while the reader
/// has room) and its one reader. Changes of the socket's state go in order with the messages and
/// cost nothing against the limit.
///
/// The connection asks for room before each receive: it gets it while fewer than `limit` bytes
/// wait; once it had to wait, only when the reader is down to half of that. So at most `limit`
/// bytes plus one message (up to the socket's maximum message size) are held, however slowly the
/// reader reads, and the network is read no faster than the reader takes.
final class WebSocketBuffer: Sendable {
    enum Item: Sendable {
        case message(WebSocketMessage)
        case state(WebSocketState)
    }

    enum Next: Sendable {
        case item(Item)
        /// The socket ended: `nil` when it closed, else its error.
        case end(NetworkError?)
    }

    private struct State {
        var items: [Item] = []
        var head = 0
        var bytes = 0
        var end: NetworkError??
        /// The app closed the socket: the connection no longer waits for room.
        var closing = false
        var reader: CheckedContinuation<Void, Never>?
        var producer: CheckedContinuation<Void, Never>?
    }

    /// The most message bytes held for the reader before the connection stops receiving.
    let limit: Int
    private let state = Protected(State())

    init(limit: Int) {
        self.limit = max(limit, 1)
    }

    /// Bytes waiting for the reader.
    var byteCount: Int { state.withLock { $0.bytes } }

    /// Whether room is there now (and the stream still runs, or ended: no waiting then).
    func hasRoom() -> Bool {
        state.withLock { $0.end != nil || $0.bytes < limit }
    }

    /// Waits until the reader has room for another message: fewer than `limit` bytes wait (after
    /// a wait, half of it), the socket is closing, or it ended. Only one caller waits at a time.
    func waitForRoom() async {
        if hasRoom() || state.withLock({ $0.closing }) { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.end != nil || state.closing || state.bytes <= limit / 2 { return true }
                state.producer = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Appends a message for the reader (never waits: the connection asked for room first).
    func append(_ message: WebSocketMessage) {
        let reader = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.end == nil else { return nil }
            state.items.append(.message(message))
            state.bytes += message.byteCount
            defer { state.reader = nil }
            return state.reader
        }
        reader?.resume()
    }

    /// Appends a change of state for the reader, in order with the messages (kept only while the
    /// socket runs).
    func mark(_ change: WebSocketState) {
        let reader = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.end == nil else { return nil }
            state.items.append(.state(change))
            defer { state.reader = nil }
            return state.reader
        }
        reader?.resume()
    }

    /// The socket ended: the reader gets what is queued, then this end; a connection waiting for
    /// room goes on.
    func finish(_ error: NetworkError?) {
        let (reader, producer) = state.withLock { state in
            if state.end == nil { state.end = .some(error) }
            defer { (state.reader, state.producer) = (nil, nil) }
            return (state.reader, state.producer)
        }
        reader?.resume()
        producer?.resume()
    }

    /// The app closed the socket: the connection stops waiting for room (it reads on until the
    /// server's answer, whether or not the reader reads), now and from now on.
    func stopWaitingForRoom() {
        let producer = state.withLock { state in
            state.closing = true
            defer { state.producer = nil }
            return state.producer
        }
        producer?.resume()
    }

    /// The reader is gone: nothing is kept for it any more.
    func abandon() {
        let (reader, producer) = state.withLock { state in
            state.items.removeAll()
            state.head = 0
            state.bytes = 0
            if state.end == nil { state.end = .some(NetworkError.cancelled(request: nil)) }
            defer { (state.reader, state.producer) = (nil, nil) }
            return (state.reader, state.producer)
        }
        reader?.resume()
        producer?.resume()
    }

    /// Waits for the next item or the end.
    func next() async -> Next {
        while true {
            let taken = state.withLock { state -> (Next, CheckedContinuation<Void, Never>?)? in
                if state.head < state.items.count {
                    let item = state.items[state.head]
                    state.head += 1
                    if case .message(let message) = item { state.bytes -= message.byteCount }
                    Self.compact(&state)
                    var producer: CheckedContinuation<Void, Never>?
                    if state.bytes <= limit / 2 {
                        producer = state.producer
                        state.producer = nil
                    }
                    return (.item(item), producer)
                }
                if let end = state.end { return (.end(end), nil) }
                return nil
            }
            if let (next, producer) = taken {
                producer?.resume()
                return next
            }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if state.head < state.items.count || state.end != nil { return true }
                    state.reader?.resume()  // a second reader at once: the older one looks again
                    state.reader = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        }
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
