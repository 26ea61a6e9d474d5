import AsyncHTTPClient
import Foundation
import NIOCore

// The bodies of an exchange (see `AsyncHTTPClientExchange.swift`): a response body handed to a
// receiver that may block in batches, and a request body read from a file or stream in chunks.

/// A response body on its way from an event loop to a receiver that may block (a download
/// written to disk): the state of ``AsyncHTTPClientTransportTask``'s batches, kept under its lock.
///
/// A part that finds the receiver idle is handed over as it is. Parts that arrive while the
/// receiver is busy are gathered (copied once) into one buffer, which the receiver takes whole
/// when it is done: one hand-over between threads per batch however small the network's reads,
/// and writes as large as what arrived meanwhile. Once ``limit`` bytes are gathered the caller
/// pauses reading until the receiver takes them, so at most two batches of about ``limit`` bytes
/// are held (the one being received and the one being gathered). The two gathering buffers are
/// reused in turn: no allocation per batch.
struct BodyBatches: Sendable {
    /// What to do with a part that arrived.
    enum Arrival: Equatable {
        /// The receiver was idle: hand it this batch (it is busy from now on).
        case handOver(ByteBuffer)
        /// Gathered for the receiver's next batch; `full` once ``limit`` bytes wait: pause reading
        /// until the receiver takes them.
        case gathered(full: Bool)
    }

    /// The gathered bytes at which reading pauses.
    let limit: Int
    /// Parts gathered while the receiver is busy.
    private var gathering: ByteBuffer?
    /// A gathering buffer the receiver gave back, empty, for the next batch.
    private var spare: ByteBuffer?
    /// Whether a batch is with the receiver.
    private(set) var isReceiving = false
    /// The size of the batch with the receiver.
    private var receivingBytes = 0
    /// The most bytes held at once: the batch with the receiver plus those gathered.
    private(set) var maximumHeldBytes = 0

    /// - Parameter limit: The gathered bytes at which reading pauses.
    init(limit: Int) {
        self.limit = limit
    }

    /// Bytes gathered for the next batch.
    var gatheredBytes: Int { gathering?.readableBytes ?? 0 }

    /// A part arrived from the network.
    /// - Parameter part: The bytes.
    /// - Returns: What to do with them.
    mutating func receive(_ part: ByteBuffer) -> Arrival {
        guard isReceiving else {
            isReceiving = true
            receivingBytes = part.readableBytes
            maximumHeldBytes = max(maximumHeldBytes, receivingBytes)
            return .handOver(part)
        }
        var buffer =
            gathering.take() ?? spare.take()
            ?? ByteBufferAllocator().buffer(capacity: limit + Self.typicalPartSize)
        buffer.writeImmutableBuffer(part)
        gathering = consume buffer
        let gathered = gatheredBytes
        maximumHeldBytes = max(maximumHeldBytes, receivingBytes + gathered)
        return .gathered(full: gathered >= limit)
    }

    /// The receiver is done with its batch: the next one, or nil when nothing was gathered (the
    /// receiver is idle from now on).
    /// - Parameter used: The received batch when it was a gathering buffer, to reuse (taken, and
    ///   kept only if no one else holds its memory); nil otherwise.
    /// - Returns: The next batch, or nil.
    mutating func next(givingBack used: inout ByteBuffer?) -> ByteBuffer? {
        if var buffer = used.take(), spare == nil {
            buffer.clear()
            spare = consume buffer
        }
        guard let batch = gathering.take() else {
            isReceiving = false
            receivingBytes = 0
            return nil
        }
        receivingBytes = batch.readableBytes
        return batch
    }

    /// Drops the gathered bytes (the exchange was cancelled).
    mutating func discard() {
        gathering = nil
    }

    /// The size of most network reads (SwiftNIO's largest by default), the margin a gathering
    /// buffer has above ``limit`` so that the part that fills it needs no larger buffer.
    static let typicalPartSize = 64 << 10
}

/// An upload body read in chunks: a file, or a stream.
// @unchecked: its handle, stream and buffer are used only on `queue`, one read at a time.
final class ChunkSource: @unchecked Sendable {
    let queue = DispatchQueue(label: "formwork.asynchttpclient.upload")
    private let file: URL?
    private var handle: FileHandle?
    private var stream: InputStream?
    private var opened = false
    private var buffer = [UInt8](repeating: 0, count: AsyncHTTPClientTransport.uploadChunkSize)

    init(file: URL) {
        self.file = file
    }

    init(stream: InputStream) {
        self.file = nil
        self.stream = stream
    }

    /// The next chunk, or nil at the end.
    func read() throws -> Data? {
        if !opened {
            opened = true
            if let file {
                do {
                    handle = try FileHandle(forReadingFrom: file)
                } catch {
                    throw URLError(.cannotOpenFile, userInfo: [NSUnderlyingErrorKey: error])
                }
            } else {
                stream?.open()
            }
        }
        if let handle {
            let chunk = try handle.read(upToCount: AsyncHTTPClientTransport.uploadChunkSize)
            return chunk?.isEmpty == false ? chunk : nil
        }
        guard let stream else { return nil }
        // `streamError` is never read: it traps on Linux.
        let count = stream.read(&buffer, maxLength: buffer.count)
        if count < 0 {
            throw URLError(
                .unknown, userInfo: [NSLocalizedDescriptionKey: "The request body stream could not be read"])
        }
        return count == 0 ? nil : Data(buffer[0..<count])
    }

    deinit { close() }

    func close() {
        try? handle?.close()
        handle = nil
        stream?.close()
        stream = nil
    }
}

extension ChunkSource {
    /// Writes the source chunk by chunk: the next chunk is read (on ``queue``, off the event
    /// loops) once the connection took the previous one, so an upload of any size holds one
    /// chunk at a time.
    /// - Parameters:
    ///   - writer: Where AsyncHTTPClient takes the body.
    ///   - loop: The loop of the returned future.
    /// - Returns: A future that ends with the source: at its end, or with a read or write error.
    func pump(to writer: HTTPClient.Body.StreamWriter, on loop: any EventLoop) -> EventLoopFuture<Void> {
        let done = loop.makePromise(of: Void.self)
        pumpNext(to: writer, done: done)
        return done.futureResult
    }

    private func pumpNext(to writer: HTTPClient.Body.StreamWriter, done: EventLoopPromise<Void>) {
        queue.async {
            let chunk: Data?
            do {
                chunk = try self.read()
            } catch {
                self.close()
                return done.fail(error)
            }
            guard let chunk else {
                self.close()
                return done.succeed()
            }
            writer.write(.byteBuffer(ByteBuffer(data: chunk))).whenComplete { result in
                switch result {
                case .success: self.pumpNext(to: writer, done: done)
                case .failure(let error):
                    self.queue.async { self.close() }
                    done.fail(error)
                }
            }
        }
    }
}
