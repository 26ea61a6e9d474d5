/// Turns the bytes of one `text/event-stream` connection, fed in chunks of any size, into events,
/// following the WHATWG HTML "Server-sent events" rules for interpreting an event stream:
///
/// - the stream is UTF-8 whatever its `charset` says (invalid bytes become U+FFFD), and a leading
///   byte order mark is skipped once;
/// - lines end at CR, LF or CR LF (see ``LineSplitter``);
/// - an empty line dispatches the event; a line starting with `:` is a comment; otherwise the
///   field name runs to the first `:` (the whole line when there is none, with an empty value)
///   and one space after the colon is dropped from the value;
/// - `event` sets the type; `data` appends the value and an LF; `id` sets the last event ID
///   unless the value holds NUL; `retry` sets the reconnection time only when the value is all
///   ASCII digits; other fields are ignored;
/// - dispatching sets the last event ID string, then, if the data is empty, resets the type and
///   data without an event; otherwise drops one final LF from the data and emits the event (type
///   `message` when none was set);
/// - an event not ended by an empty line when the stream ends is never dispatched.
///
/// One parser per connection: the last event ID buffer starts empty on each, as the standard
/// says. Pure: no I/O, no clock.
struct EventStreamParser: Sendable {
    private var lines = LineSplitter()
    private var dataBuffer: [UInt8] = []
    private var hasData = false
    private var typeBuffer = ""
    private var lastEventIDBuffer = ""

    /// The last event ID string: changes only when an event is dispatched (also one whose data
    /// was empty), so an `id:` in an event cut off by a dropped connection never counts.
    private(set) var lastEventID = ""
    /// The reconnection time in milliseconds from the latest valid `retry:` field, if any.
    private(set) var retry: Int?

    /// The bytes held for the event and line being read (bounded by the caller's limit).
    var pendingByteCount: Int { lines.pendingByteCount + dataBuffer.count + typeBuffer.utf8.count }

    /// Feeds the next chunk and calls `event` for every event it completes, in order.
    /// - Parameters:
    ///   - bytes: The next bytes of the connection.
    ///   - event: Receives each dispatched event; throwing stops the feed and rethrows.
    mutating func feed<Bytes: Sequence<UInt8>>(_ bytes: Bytes, event: (ServerSentEvent) throws -> Void)
        rethrows
    {
        // The splitter is moved out while it runs so that `process` may change the other fields.
        var splitter = lines
        defer { lines = splitter }
        try splitter.feed(bytes) { line, _ in
            if let dispatched = process(line) { try event(dispatched) }
        }
    }

    /// Convenience for tests and the fuzzer: every event `bytes` completes.
    mutating func events<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        feed(bytes) { events.append($0) }
        return events
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
