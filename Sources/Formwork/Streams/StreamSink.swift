import Foundation

/// Where a stream's body goes: parsed on the transport's delivery thread into items for the
/// ``StreamBuffer`` (short, constant work per chunk; with ``StreamBufferPolicy/slowDown`` the
/// thread waits while the reader is a whole buffer behind, which slows the network down).
///
/// It also keeps what outlives one connection of an event stream: the last event ID, the server's
/// `retry`, and how many connections in a row ended without an event (for the back-off).
final class StreamSink: ResponseSink {
    private struct State {
        var mode: StreamMode?
        /// Body bytes that arrived before a reader chose the mode.
        var unread = Data()
        var feed: StreamFeed?
        /// The attempt whose body is being read.
        var attempt = 0
        /// Set when the current connection must not be read (an event stream answered with
        /// another status or content type): its first body bytes fail the attempt with it.
        var rejection: NetworkError?
        /// The current connection's response head, once it arrived.
        var head: HTTPURLResponse?
        var lastEventID = ""
        var retry: Int?
        var eventsInConnection = 0
        var quietConnections = 0
        /// Whether the current connection was accepted and has not ended yet.
        var isOpen = false
    }

    let buffer: StreamBuffer
    let reconnection: StreamReconnection
    /// Told when a connection is asked for, accepted, or reconnected after a wait.
    let connections = StreamConnectionObservers()
    private let state = Protected(State())

    init(limit: Int, policy: StreamBufferPolicy = .slowDown, reconnection: StreamReconnection) {
        buffer = StreamBuffer(limit: limit, policy: policy)
        self.reconnection = reconnection
    }

    /// The last event ID as the stream knows it: what the next connection sends as
    /// `Last-Event-ID`.
    var lastEventID: String { state.withLock { $0.lastEventID } }

    /// The server's latest `retry:` in seconds, else the policy's default.
    var reconnectionTime: TimeInterval {
        state.withLock { $0.retry }.map { TimeInterval($0) / 1000 } ?? reconnection.defaultRetry
    }

    /// Tells the observers and the reader (in order with the items) of a change of the connection.
    private func post(_ change: StreamConnectionState) {
        connections.post(change)
        buffer.mark(change)
    }

    /// The mode the reader chose, if any yet.
    var mode: StreamMode? { state.withLock { $0.mode } }

    /// The reader chose how to read the stream. Returns `false` when it was already read another
    /// way. Bytes that came before the choice are parsed now.
    func choose(_ mode: StreamMode) -> Bool {
        var rejected: NetworkError?
        // nil: already read another way.
        let items = state.withLock { state -> [StreamItem]? in
            if let chosen = state.mode { return chosen == mode ? [] : nil }
            state.mode = mode
            // Chosen after the head arrived (a hook started the request first): an event stream
            // answered with another status or content type is rejected now, even if the request
            // already ended.
            if mode == .events, state.rejection == nil, let head = state.head,
                let failure = EventStreamRule.rejection(of: head)
            {
                state.rejection = failure
                state.unread = Data()
                rejected = failure
                return []
            }
            guard !state.unread.isEmpty else { return [] }
            var feed = StreamFeed(mode: mode)
            var items: [StreamItem] = []
            feed.feed(state.unread) { items.append($0) }
            state.unread = Data()
            state.feed = feed
            return items
        }
        guard let items else { return false }
        if let rejected {
            buffer.finish(rejected)
            return true
        }
        for item in items { try? buffer.append(item) }
        return true
    }

    /// The headers a new attempt sends, and the buffer reopened after a reload.
    func prepare(_ request: inout URLRequest) {
        buffer.reopen()
        post(.connecting)
        let (mode, lastEventID) = state.withLock { ($0.mode, $0.lastEventID) }
        guard mode == .events else { return }
        if request.value(forHTTPHeaderField: "Accept") == nil {
            request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        }
        request.setValue("no-store", forHTTPHeaderField: "Cache-Control")
        if !lastEventID.isEmpty { request.setValue(lastEventID, forHTTPHeaderField: "Last-Event-ID") }
    }

    // MARK: ResponseSink

    /// A reader that falls behind slows the transport down (``StreamBufferPolicy/slowDown``).
    var pacing: SinkPacing { buffer.policy == .slowDown ? .reader : .never }

    func open(_ response: HTTPURLResponse, attempt: Int) -> SinkDecision {
        let (accepted, isOpen) = state.withLock { state -> (Bool, Bool) in
            state.attempt = attempt
            state.eventsInConnection = 0
            state.rejection = nil
            state.head = response
            state.feed = state.mode.map { StreamFeed(mode: $0) }
            state.unread = Data()
            if state.mode == .events, let failure = EventStreamRule.rejection(of: response) {
                state.rejection = failure
            }
            let accepted = (200..<300).contains(response.statusCode) && response.statusCode != 204
            // A status the request's validation may still fail is not an open stream either.
            state.isOpen = accepted && state.rejection == nil
            return (accepted, state.isOpen)
        }
        if isOpen { post(.open) }
        return accepted ? .write(TransferProgress(completedBytes: 0, totalBytes: nil)) : .collectInMemory
    }

    func write(_ data: Data) throws(NetworkError) -> TransferProgress {
        typealias Fed = (items: [StreamItem], pending: Int, failure: NetworkError?)
        let fed = state.withLock { state -> Fed in
            if let rejection = state.rejection { return ([], 0, rejection) }
            if state.feed == nil, let mode = state.mode { state.feed = StreamFeed(mode: mode) }
            guard var feed = state.feed else {
                state.unread.append(data)
                let held = state.unread.count
                return ([], 0, held > buffer.limit ? StreamBuffer.overflow(held, limit: buffer.limit) : nil)
            }
            var items: [StreamItem] = []
            feed.feed(data) { items.append($0) }
            state.feed = feed
            if let lastEventID = feed.lastEventID { state.lastEventID = lastEventID }
            if let retry = feed.retry { state.retry = retry }
            state.eventsInConnection += items.count
            if !items.isEmpty { state.quietConnections = 0 }
            return (items, feed.pendingByteCount, nil)
        }
        if let failure = fed.failure { throw failure }
        for item in fed.items { try buffer.append(item, pendingBytes: fed.pending) }
        if fed.items.isEmpty, fed.pending > buffer.limit {
            throw StreamBuffer.overflow(fed.pending + buffer.byteCount, limit: buffer.limit)
        }
        return TransferProgress(completedBytes: 0, totalBytes: nil)
    }

    func close(attempt: Int, error: NetworkError?) -> NetworkError? {
        // A connection rejected when the reader chose events late (after the request's own checks
        // passed) still ends the reader with the rejection, never with a clean end.
        var failure = error ?? state.withLock { $0.rejection }
        if failure == nil {
            // The request ended cleanly: a final line without a line end still counts.
            let items = state.withLock { state -> [StreamItem] in
                var items: [StreamItem] = []
                state.feed?.finish { items.append($0) }
                state.feed = nil
                return items
            }
            do {
                for item in items { try buffer.append(item) }
            } catch {
                failure = error
            }
        }
        let wasOpen = state.withLock { state in
            defer { state.isOpen = false }
            return state.isOpen
        }
        if wasOpen, failure?.kind != .cancelled { post(.lost) }
        buffer.finish(failure)
        return failure
    }

    func isComplete(attempt: Int) -> Bool { false }

    // MARK: Reconnecting

    /// Checks how a connection of an event stream ended (run as the request's last validator):
    /// a clean end of a 200 `text/event-stream` is a reason to reconnect, reported as
    /// ``EventStreamRule/EndOfConnection``, unless the stream never reconnects.
    func checkEnd(_ response: HTTPURLResponse) throws {
        let (mode, rejection) = state.withLock { ($0.mode, $0.rejection) }
        guard mode == .events else { return }
        if let rejection { throw rejection }
        if let failure = EventStreamRule.rejection(of: response) { throw failure }
        // A stream that does not reconnect ends cleanly with its connection.
        if response.statusCode == 200, reconnection.reconnects { throw EventStreamRule.EndOfConnection() }
    }

    /// Whether `failure` is the clean end of a connection (``EventStreamRule/EndOfConnection``).
    func isCleanEnd(_ failure: NetworkError) -> Bool {
        failure.underlyingError is EventStreamRule.EndOfConnection
    }

    /// The wait before reconnecting after `failure`, or `nil` when the stream must not reconnect.
    func reconnectDelay(after failure: NetworkError) -> TimeInterval? {
        let (facts, wasOpen) = state.withLock { state -> (EventStreamRule.Facts?, Bool) in
            let wasOpen = state.isOpen
            state.isOpen = false
            guard state.mode == .events else { return (nil, wasOpen) }
            if state.eventsInConnection == 0 { state.quietConnections += 1 }
            state.eventsInConnection = 0
            return (
                EventStreamRule.Facts(retry: state.retry, quietConnections: state.quietConnections), wasOpen
            )
        }
        if wasOpen { post(.lost) }
        guard let facts else { return nil }
        let delay = EventStreamRule.reconnectDelay(
            after: failure, facts: facts, policy: reconnection, random: Double.random(in: 0...1))
        if let delay { post(.reconnecting(after: delay)) }
        return delay
    }
}
