import Foundation

/// Turns the bytes of one `text/event-stream` connection, fed in chunks of any size, into
/// ``ServerSentEvent`` values: the parser ``StreamRequest/events()`` uses, for an app that has the
/// bytes from elsewhere (a WebSocket, a file, its own transport).
///
/// ```swift
/// var parser = EventStreamParser()
/// for try await chunk in socketMessages {  // any chunking: a line or an event may span chunks
///     for event in parser.feed(chunk) { show(event.data) }
/// }
/// ```
///
/// It follows the WHATWG HTML "Server-sent events" rules for interpreting an event stream:
///
/// - the stream is UTF-8 whatever its `charset` says (invalid bytes become U+FFFD), and a leading
///   byte order mark is skipped once;
/// - lines end at CR, LF or CR LF (a CR ending one chunk and an LF starting the next are one end);
/// - an empty line dispatches the event; a line starting with `:` is a comment; otherwise the
///   field name runs to the first `:` (the whole line when there is none, with an empty value)
///   and one space after the colon is dropped from the value;
/// - `event` sets the type; `data` appends the value and an LF; `id` sets the last event ID
///   unless the value holds NUL; `retry` sets the reconnection time only when the value is all
///   ASCII digits; other fields are ignored;
/// - dispatching sets the last event ID, then, if the data is empty, resets the type and data
///   without an event; otherwise drops one final LF from the data and emits the event (type
///   `message` when none was set);
/// - an event not ended by an empty line when the bytes end is never dispatched (there is no
///   `finish`: what is still pending when you stop feeding is dropped, as the standard says).
///
/// Use one parser per connection: the last event ID starts empty, as the standard says. A `retry:`
/// or an `id:` in a block without data changes ``reconnectionTime`` or ``lastEventID`` without
/// any event. Pure: no I/O, no clock. The parser holds only the event and line being read
/// (``pendingByteCount``); bound it yourself when the bytes come from a source you do not trust.
public struct EventStreamParser: Sendable {
    private var lines = LineSplitter()
    private var dataBuffer: [UInt8] = []
    private var hasData = false
    private var typeBuffer = ""
    private var lastEventIDBuffer = ""

    /// The last event ID: the value of the latest `id:` field of a block that was dispatched (also
    /// a block without data, which dispatches no event), empty until then. An `id:` in an event
    /// cut off by the end of the bytes never counts. This is what a reconnection sends back as
    /// `Last-Event-ID`.
    public private(set) var lastEventID = ""
    /// The reconnection time in milliseconds from the latest valid `retry:` field, if any.
    private(set) var retry: Int?
    /// Whether a block was dispatched yet (so ``lastEventID`` was set by these bytes).
    private(set) var hasDispatched = false

    /// The reconnection time the stream asked for with its latest valid `retry:` field (all ASCII
    /// digits, in milliseconds), in seconds; `nil` until one came. It changes as soon as the field
    /// is read, whether or not its block carries data.
    public var reconnectionTime: TimeInterval? { retry.map { TimeInterval($0) / 1000 } }

    /// The bytes held for the event and the line being read: what a source sending a line or an
    /// event without end would make grow.
    public var pendingByteCount: Int { lines.pendingByteCount + dataBuffer.count + typeBuffer.utf8.count }

    /// Creates a parser for one connection's bytes.
    public init() {}

    /// Feeds the next bytes and returns the events they complete, in order.
    /// - Parameter bytes: The next bytes of the stream (`Data`, `[UInt8]`, a string's `utf8`, …),
    ///   cut anywhere.
    /// - Returns: The events dispatched by these bytes; empty when they complete none.
    public mutating func feed<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        feed(bytes) { events.append($0) }
        return events
    }

    /// Feeds the next bytes and calls `event` for every event they complete, in order, without
    /// collecting them.
    /// - Parameters:
    ///   - bytes: The next bytes of the stream, cut anywhere.
    ///   - event: Receives each dispatched event; throwing stops the feed and rethrows (the bytes
    ///     after that event are not read).
    public mutating func feed<Bytes: Sequence<UInt8>>(
        _ bytes: Bytes, event: (ServerSentEvent) throws -> Void
    ) rethrows {
        // The splitter is moved out while it runs so that `process` may change the other fields.
        var splitter = lines
        defer { lines = splitter }
        try splitter.feed(bytes) { line, _ in
            if let dispatched = process(line) { try event(dispatched) }
        }
    }

    private mutating func process(_ line: [UInt8]) -> ServerSentEvent? {
        guard let first = line.first else { return dispatch() }
        if first == UInt8(ascii: ":") { return nil }
        let name: ArraySlice<UInt8>
        var value: ArraySlice<UInt8>
        if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            name = line[..<colon]
            value = line[(colon + 1)...]
            if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        } else {
            name = line[...]
            value = []
        }
        switch String(decoding: name, as: UTF8.self) {
        case "event":
            typeBuffer = String(decoding: value, as: UTF8.self)
        case "data":
            dataBuffer.append(contentsOf: value)
            dataBuffer.append(UInt8(ascii: "\n"))
            hasData = true
        case "id":
            if !value.contains(0) { lastEventIDBuffer = String(decoding: value, as: UTF8.self) }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
                retry = Self.clampedInteger(value)
            }
        default:
            break
        }
        return nil
    }

    private mutating func dispatch() -> ServerSentEvent? {
        lastEventID = lastEventIDBuffer
        hasDispatched = true
        defer {
            dataBuffer.removeAll(keepingCapacity: true)
            hasData = false
            typeBuffer = ""
        }
        guard hasData else { return nil }
        let data = String(decoding: dataBuffer.dropLast(), as: UTF8.self)
        return ServerSentEvent(type: typeBuffer.isEmpty ? "message" : typeBuffer, data: data, id: lastEventID)
    }

    /// ASCII digits as an integer, saturating at `Int.max` (a huge `retry` is capped later).
    private static func clampedInteger(_ digits: ArraySlice<UInt8>) -> Int {
        var result = 0
        for digit in digits {
            let (times, overflow1) = result.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int(digit - UInt8(ascii: "0")))
            if overflow1 || overflow2 { return Int.max }
            result = sum
        }
        return result
    }
}
