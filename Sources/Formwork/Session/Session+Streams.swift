import Foundation

extension Session {
    /// Opens a stream: a request whose body is read as it arrives, as server-sent events, JSON
    /// lines, text lines or byte chunks (see ``StreamRequest``).
    ///
    /// ```swift
    /// for try await event in session.stream(ScoresForm()).events() { print(event.data) }
    /// ```
    ///
    /// The request starts when it is first read (or at its first hook or ``Request/resume()``).
    /// - Parameters:
    ///   - form: What to request (usually a GET).
    ///   - bufferLimit: The most bytes held for a reader that falls behind: items it has not
    ///     taken yet plus the event or line being read (one item larger than this fails the stream
    ///     with ``NetworkError/Kind/streamBufferOverflow``).
    ///   - bufferPolicy: What happens when the reader falls more than `bufferLimit` behind:
    ///     by default the network slows down until it catches up (see ``StreamBufferPolicy``).
    ///   - reconnection: How an event stream reconnects.
    /// - Returns: The request.
    public func stream(
        _ form: some RequestFormable, bufferLimit: Int = StreamRequest.defaultBufferLimit,
        bufferPolicy: StreamBufferPolicy = .slowDown, reconnection: StreamReconnection = .default
    ) -> StreamRequest {
        let (snapshot, configuration) = (FormSnapshot(form), self.configuration)
        let sink = StreamSink(limit: max(bufferLimit, 1), policy: bufferPolicy, reconnection: reconnection)
        let core = RequestCore(
            host: self, sink: sink, progress: .download,
            build: .immediate { _ in
                var request = try URLRequestBuilder.request(for: snapshot, configuration: configuration)
                sink.prepare(&request)
                return PreparedRequest(urlRequest: request, redirectPolicy: snapshot.redirectPolicy)
            })
        // The stream's last word on how a connection ended (runs after any status check).
        core.updateValidation { rules in
            rules.custom.append { _, response, _ in try sink.checkEnd(response) }
        }
        return StreamRequest(core: core, sink: sink)
    }
}

extension Requestable {
    /// Opens a stream whose body is read as it arrives (see
    /// ``Session/stream(_:bufferLimit:bufferPolicy:reconnection:)``).
    /// - Parameters:
    ///   - form: What to request.
    ///   - session: The session that runs it.
    ///   - bufferLimit: The most bytes held for a reader that falls behind.
    ///   - bufferPolicy: What happens when the reader falls more than `bufferLimit` behind.
    ///   - reconnection: How an event stream reconnects.
    /// - Returns: The request.
    public func stream(
        _ form: some RequestFormable, session: Session = .default,
        bufferLimit: Int = StreamRequest.defaultBufferLimit, bufferPolicy: StreamBufferPolicy = .slowDown,
        reconnection: StreamReconnection = .default
    ) -> StreamRequest {
        session.stream(form, bufferLimit: bufferLimit, bufferPolicy: bufferPolicy, reconnection: reconnection)
    }
}
