import Foundation

/// How a stream's body is read: chosen by the first reader (`events()`, `lines()`,
/// `jsonLines(of:)` or `chunks()`).
enum StreamMode: Sendable, Equatable {
    /// Server-sent events, reconnected after a drop.
    case events
    /// Lines (raw text or JSON lines).
    case lines
    /// Byte chunks as they arrive.
    case chunks
}

/// One piece of a stream waiting for its reader.
enum StreamItem: Sendable {
    case event(ServerSentEvent)
    /// A line's bytes (without its line end) and its 1-based number in the connection's body.
    case line(Data, number: Int)
    case chunk(Data)
    /// A change of the connection, in order with the items around it (read by `updates()`,
    /// skipped by the other readers).
    case connection(StreamConnectionState)

    /// Whether the item is a change of the connection rather than a piece of the body.
    var isConnectionChange: Bool {
        if case .connection = self { true } else { false }
    }

    /// What the item costs against the buffer limit (its payload bytes).
    var byteCount: Int {
        switch self {
        case .event(let event): event.data.utf8.count + event.type.utf8.count + event.id.utf8.count
        case .line(let data, _): data.count + 1  // its line end: even empty lines cost something
        case .chunk(let data): data.count
        case .connection: 0
        }
    }
}

/// Turns one connection's body into items for a mode: the event-stream parser, a line splitter,
/// or nothing (chunks). Pure.
struct StreamFeed: Sendable {
    private var parser: EventStreamParser?
    private var splitter: LineSplitter?
    let mode: StreamMode

    init(mode: StreamMode) {
        self.mode = mode
        switch mode {
        case .events: parser = EventStreamParser()
        case .lines: splitter = LineSplitter()
        case .chunks: break
        }
    }

    /// The last event ID string once the connection dispatched a block (events mode); `nil`
    /// before, when the stream's last event ID from earlier connections still stands.
    var lastEventID: String? { parser.flatMap { $0.hasDispatched ? $0.lastEventID : nil } }
    /// The connection's latest valid `retry:` in milliseconds (events mode).
    var retry: Int? { parser?.retry }
    /// Bytes held for the event or line not complete yet.
    var pendingByteCount: Int { parser?.pendingByteCount ?? splitter?.pendingByteCount ?? 0 }

    /// Feeds body bytes; `emit` receives each completed item.
    mutating func feed(_ data: Data, emit: (StreamItem) throws -> Void) rethrows {
        switch mode {
        case .events:
            try parser?.feed(data) { try emit(.event($0)) }
        case .lines:
            try splitter?.feed(data) { bytes, number in try emit(.line(Data(bytes), number: number)) }
        case .chunks:
            if !data.isEmpty { try emit(.chunk(data)) }
        }
    }

    /// The body ended cleanly: a final line without a line end still counts (lines mode); an
    /// incomplete event is dropped (events mode).
    mutating func finish(emit: (StreamItem) throws -> Void) rethrows {
        if let last = splitter?.finish() { try emit(.line(Data(last.bytes), number: last.number)) }
    }
}
