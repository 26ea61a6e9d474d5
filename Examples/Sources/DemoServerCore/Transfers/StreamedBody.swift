import NIOCore
import NIOHTTP1

/// A response body produced piece by piece as the connection can take it, so that a 4 GiB body
/// costs a few hundred KiB of memory.
struct StreamedBody: Sendable {
    /// The `Content-Length` to announce; nil sends the body chunked (total unknown).
    var contentLength: Int64?
    /// How many body bytes to send. Less than the announced length simulates a drop (see `closesEarly`).
    var bytesToSend: Int64
    /// `true`: after `bytesToSend` bytes, close the connection instead of ending the response.
    var closesEarly: Bool
    /// A throttle in bytes per second; nil sends as fast as the client reads.
    var bytesPerSecond: Int64?
    /// How many slices a second the throttle sends (each a 1/slicesPerSecond share of the rate).
    var slicesPerSecond: Int64 = 20
    /// Writes the body bytes starting at the given offset (0 = the first body byte) into the buffer.
    var fill: @Sendable (_ buffer: UnsafeMutableRawBufferPointer, _ offset: Int64) -> Void
    /// Told how many bytes were handed to the connection, chunk by chunk (for `/stats`).
    var onSent: @Sendable (_ count: Int) -> Void
    /// Told when the client closed the connection before the body ended (for `/sse/closed`).
    var onClientClose: @Sendable () -> Void = {}
}

/// Writes one `StreamedBody` on a connection, on its event loop, with back-pressure: it writes
/// while the channel is writable, then waits for `channelWritabilityChanged` (or for the
/// throttle's timer), so at most one write-buffer high-water mark of data waits in memory.
final class StreamedBodyWriter {
    /// The largest body part written at once.
    static let chunkSize = 256 * 1024
    /// The most written in one event-loop turn. On loopback the socket may drain as fast as it is
    /// filled; without this limit one large download would starve the loop's other connections
    /// and timers.
    static let bytesPerTurn: Int64 = 2 * 1024 * 1024

    private let body: StreamedBody
    private let keepAlive: Bool
    private let finished: (StreamedBodyWriter) -> Void
    private let started = NIODeadline.now()
    private var sent: Int64 = 0
    /// A throttle timer, or a continuation in the next event-loop turn, is scheduled.
    private var timerPending = false
    private var done = false
    /// Re-entrancy guard for `pump`, and a nested call's request for one more pass.
    private var pumping = false
    private var passRequested = false
    /// The last body write: the connection is closed only once it went out.
    private var lastWrite: EventLoopFuture<Void>?

    /// - Parameters:
    ///   - body: What to send.
    ///   - keepAlive: Whether the connection stays open after a complete response.
    ///   - finished: Called once with this writer, when the response has ended or the connection
    ///     was closed. (Ending a response can start the next pipelined one at once, with a new writer.)
    init(body: StreamedBody, keepAlive: Bool, finished: @escaping (StreamedBodyWriter) -> Void) {
        self.body = body
        self.keepAlive = keepAlive
        self.finished = finished
    }

    /// Writes as much as the channel (and the throttle) allows now.
    ///
    /// Writing and flushing can fire `channelWritabilityChanged` synchronously, which calls this
    /// again: such a nested call only asks the running one for another pass.
    func pump(context: ChannelHandlerContext) {
        guard !done, !timerPending else { return }
        guard !pumping else {
            passRequested = true
            return
        }
        pumping = true
        defer { pumping = false }
        let turnLimit = sent + Self.bytesPerTurn
        repeat {
            passRequested = false
            writeWhileWritable(context: context, until: turnLimit)
            context.flush()
        } while passRequested && !done && !timerPending && sent < turnLimit
        if !done, !timerPending, sent >= turnLimit, sent < body.bytesToSend {
            // Let the loop's other work run, then go on.
            timerPending = true
            context.eventLoop.assumeIsolated().execute {
                self.timerPending = false
                self.pump(context: context)
            }
            return
        }
        if !done, !timerPending, sent >= body.bytesToSend {
            finish(context: context)
        }
    }

    private func writeWhileWritable(context: ChannelHandlerContext, until turnLimit: Int64) {
        while !done, sent < body.bytesToSend, sent < turnLimit, context.channel.isWritable {
            var size = Int(min(Int64(Self.chunkSize), body.bytesToSend - sent))
            if let rate = body.bytesPerSecond {
                // Send in slices (by default 50 ms worth of data), each no earlier than its due time.
                size = min(size, Int(max(1, rate / max(1, body.slicesPerSecond))))
                let due = started + .nanoseconds(Int64(Double(sent) / Double(rate) * 1e9))
                if due > .now() {
                    timerPending = true
                    context.eventLoop.assumeIsolated().scheduleTask(deadline: due) {
                        self.timerPending = false
                        self.pump(context: context)
                    }
                    return
                }
            }
            var buffer = context.channel.allocator.buffer(capacity: size)
            let offset = sent
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { pointer in
                body.fill(UnsafeMutableRawBufferPointer(rebasing: pointer[..<size]), offset)
                return size
            }
            sent += Int64(size)
            body.onSent(size)
            lastWrite = context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(buffer))))
        }
    }

    /// The connection went away: stop.
    func connectionClosed() {
        guard !done else { return }
        done = true
        body.onClientClose()
        finished(self)
    }

    private func finish(context: ChannelHandlerContext) {
        done = true
        if body.closesEarly {
            // A dropped connection: the body stops short of the announced length, with no end.
            let close = { context.close(promise: nil) }
            if let lastWrite {
                lastWrite.assumeIsolated().whenComplete { _ in close() }
            } else {
                close()
            }
        } else {
            let ended = context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)))
            if !keepAlive {
                ended.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
            }
        }
        finished(self)
    }
}
