import Foundation

/// A request whose response body is read as it arrives: server-sent events (reconnected after a
/// drop), JSON lines, text lines or byte chunks. What `stream(_:)` returns.
///
/// ```swift
/// for try await event in session.stream(ScoresForm()).events() {
///     show(event.data)
/// }
/// ```
///
/// Read it one way, with one reader at a time: the first of ``events()`` (or ``updates()``, the
/// same events with the connection's changes), ``lines()``,
/// ``jsonLines(of:decoder:skippingInvalidLines:)`` or ``chunks()`` chooses. Reading starts the
/// request; leaving the loop, or cancelling the reading `Task`, cancels it.
///
/// **Memory.** Only the event or line being read and the items the reader has not taken yet are
/// held, at most its `bufferLimit:` bytes. When the reader falls that far behind the server, its
/// `bufferPolicy:` decides: by default the stream stops reading from the network until the
/// reader catches up, so nothing is lost and memory stays bounded however slow the reader is
/// (``StreamBufferPolicy/slowDown``); it can also keep only the newest items or fail.
///
/// The request is a ``Request``: `validate`, `adapt`, `retry`, `warn` and `reload` chain as usual,
/// and ``Request/load(_:)`` shows loading until the first item arrives.
///
/// **Timeouts.** The form's (or session's) idle `timeout` applies to each connection: a server
/// silent for longer counts as a dropped connection (an event stream reconnects; send comments as
/// keep-alives). A total deadline (the session's ``Session/Timeouts/total`` or
/// ``Request/totalTimeout(_:)``) ends the whole stream, reconnections included.
public final class StreamRequest: Request, @unchecked Sendable {  // adds a Sendable `let`
    let sink: StreamSink

    /// The default `bufferLimit:` of ``Session/stream(_:bufferLimit:bufferPolicy:reconnection:)``: 4 MiB.
    public static let defaultBufferLimit = 4 << 20

    init(core: RequestCore, sink: StreamSink) {
        self.sink = sink
        super.init(core: core)
    }

    /// The most bytes held for the reader: items it has not taken yet plus the event or line
    /// being read. One item larger than this fails the stream with
    /// ``NetworkError/Kind/streamBufferOverflow``; a reader that falls this far behind meets
    /// ``bufferPolicy``.
    var bufferLimit: Int { sink.buffer.limit }

    /// What happens when the reader falls ``bufferLimit`` bytes behind (see ``StreamBufferPolicy``).
    var bufferPolicy: StreamBufferPolicy { sink.buffer.policy }

    /// How the event stream reconnects (see ``events()``).
    var reconnection: StreamReconnection { sink.reconnection }

    /// Reads the body as server-sent events (`text/event-stream`), parsed as the WHATWG HTML
    /// standard says.
    ///
    /// When a connection drops or ends, the stream reconnects after the server's `retry:` (see
    /// ``StreamReconnection``), sending `Last-Event-ID`: adapters, the authenticator (a token
    /// refresh on 401) and event monitors run for every connection; with
    /// ``StreamReconnection/never`` the sequence ends with the first connection. A 204 ends the sequence
    /// normally. Any other status, or a `Content-Type` other than `text/event-stream`, fails it
    /// for good with a ``NetworkError``.
    /// - Returns: The events, in order.
    public func events() -> StreamSequence<ServerSentEvent> {
        read(.events) { item in
            guard case .event(let event) = item else { return nil }
            return .success(event)
        }
    }

    /// Reads the body as lines of text (UTF-8, invalid bytes replaced), split at CR, LF or CR LF;
    /// a final line without a line end counts. Not reconnected.
    /// - Returns: The lines, without their line ends.
    public func lines() -> StreamSequence<String> {
        read(.lines) { item in
            guard case .line(let data, _) = item else { return nil }
            return .success(String(decoding: data, as: UTF8.self))
        }
    }

    /// Reads the body as JSON lines (NDJSON): each line that is not blank is decoded as `T`.
    /// Not reconnected.
    /// - Parameters:
    ///   - type: The type of each line.
    ///   - decoder: The decoder to use.
    ///   - skippingInvalidLines: `true` to skip lines that do not decode; `false` (the default)
    ///     ends the sequence with a ``NetworkError/Kind/decodingFailed`` error naming the line.
    /// - Returns: The decoded values, in order.
    public func jsonLines<T: Decodable & Sendable>(
        of type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder(), skippingInvalidLines: Bool = false
    ) -> StreamSequence<T> {
        let request = self.request
        return read(.lines) { item in
            guard case .line(let data, let number) = item else { return nil }
            guard data.contains(where: { !JSONLine.isBlank($0) }) else { return nil }
            do {
                return .success(try decoder.decode(T.self, from: data))
            } catch {
                if skippingInvalidLines { return nil }
                return .failure(
                    JSONLine.error(error, line: number, data: data, type: T.self, request: request))
            }
        }
    }

    /// Reads the body as byte chunks, as they arrive (their sizes depend on the network). Not
    /// reconnected.
    /// - Returns: The chunks.
    public func chunks() -> StreamSequence<Data> {
        read(.chunks) { item in
            guard case .chunk(let data) = item else { return nil }
            return .success(data)
        }
    }

    /// A reader for `mode`: `transform` turns items into elements (`nil` skips one); `closing` is
    /// handed over when the stream ends.
    func read<Element: Sendable>(
        _ mode: StreamMode, closing: Element? = nil,
        transform: @escaping @Sendable (StreamItem) -> Result<Element, NetworkError>?
    ) -> StreamSequence<Element> {
        let conflict: NetworkError? =
            sink.choose(mode)
            ? nil
            : NetworkError(
                .requestBuildFailed,
                failureReason: "This stream is already read another way; a stream is read one way only.")
        return StreamSequence(
            core: core, buffer: sink.buffer, conflict: conflict, transform: transform, closing: closing)
    }
}

/// The rules of a JSON line.
enum JSONLine {
    /// Whitespace JSON allows around a value.
    static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
            || byte == UInt8(ascii: "\n")
    }

    /// The error for a line that does not decode: it names the line and shows its start.
    static func error(_ error: any Error, line: Int, data: Data, type: Any.Type, request: URLRequest?)
        -> NetworkError
    {
        let text = String(decoding: data.prefix(120), as: UTF8.self)
        return NetworkError(
            .decodingFailed,
            failureReason:
                "JSON line \(line) could not be decoded as \(type): \(error). The line begins: \(text)",
            underlyingError: error, request: request)
    }
}
