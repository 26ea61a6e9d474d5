import NIOCore
import NIOHTTP1

/// A response body that is a part of a file on disk. On a plain connection it goes out as one
/// NIO `FileRegion` (`sendfile(2)`: the bytes never pass through the server's memory); under TLS,
/// which must encrypt every byte, it is read in chunks and written as a ``StreamedBody``.
struct FileBody: Sendable {
    /// The file.
    var file: StaticFile
    /// The file offset of the first body byte.
    var offset: Int64
    /// The `Content-Length` to announce.
    var contentLength: Int64
    /// How many body bytes to send. Less than `contentLength` simulates a drop (see `closesEarly`).
    var bytesToSend: Int64
    /// `true`: after `bytesToSend` bytes, close the connection instead of ending the response.
    var closesEarly: Bool
    /// Told how many body bytes went out (for `/stats`): once, after the whole region was written
    /// with `sendfile`; chunk by chunk under TLS.
    var onSent: @Sendable (_ count: Int) -> Void

    /// The same body read in chunks with `pread`, for connections that cannot send a `FileRegion`.
    var streamed: StreamedBody {
        let file = file
        let offset = offset
        return StreamedBody(
            contentLength: contentLength,
            bytesToSend: bytesToSend,
            closesEarly: closesEarly,
            fill: { buffer, position in file.read(into: buffer, at: offset + position) },
            onSent: onSent)
    }
}

extension HTTPHandler {
    /// Writes `body` as one `FileRegion`, then ends the response (or closes the connection, for a
    /// body that `closesEarly`). The region's descriptor is a copy of the file's, closed once the
    /// write is done or failed.
    /// - Parameters:
    ///   - body: What to send.
    ///   - keepAlive: Whether the connection stays open after the response.
    ///   - context: The connection's handler context.
    func writeFileRegion(_ body: FileBody, keepAlive: Bool, context: ChannelHandlerContext) {
        guard body.bytesToSend > 0 else {
            finishFileBody(body, after: nil, keepAlive: keepAlive, context: context)
            return
        }
        let handle: NIOFileHandle
        do {
            handle = NIOFileHandle(
                _deprecatedTakingOwnershipOfDescriptor: try body.file.duplicateDescriptor())
        } catch {
            // The head is out; a response cut short is the only honest answer left.
            context.close(promise: nil)
            return
        }
        let region = FileRegion(
            fileHandle: handle, readerIndex: Int(body.offset), endIndex: Int(body.offset + body.bytesToSend))
        let written = context.write(NIOAny(HTTPServerResponsePart.body(.fileRegion(region))))
        let count = Int(body.bytesToSend)
        let onSent = body.onSent
        written.assumeIsolated().whenComplete { result in
            try? handle.close()
            if case .success = result {
                onSent(count)
            }
        }
        finishFileBody(body, after: written, keepAlive: keepAlive, context: context)
    }

    /// Ends the response after the body (or closes the connection once `lastWrite` is done, for a
    /// body that `closesEarly`).
    private func finishFileBody(
        _ body: FileBody, after lastWrite: EventLoopFuture<Void>?, keepAlive: Bool,
        context: ChannelHandlerContext
    ) {
        if body.closesEarly {
            context.flush()
            if let lastWrite {
                lastWrite.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
            } else {
                context.close(promise: nil)
            }
            return
        }
        let ended = context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)))
        if !keepAlive {
            ended.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }
}
