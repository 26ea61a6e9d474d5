import AsyncHTTPClient
import Formwork
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOPosix
import NIOSSL

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A Formwork ``Transport`` on AsyncHTTPClient (SwiftNIO): for Linux services, where it costs a
/// fraction of the CPU of corelibs `URLSession`.
///
/// Use it with `Session { $0.transport = AsyncHTTPClientTransport() }`. Formwork keeps every rule
/// of its own (adapters, retries, validation, decoding, hooks, credentials on redirects); this
/// transport carries each exchange:
/// - redirects (301, 302, 303, 307, 308 with a `Location`) are followed here, at most 16 hops,
///   each one asked of Formwork first; a 303 (and a 301/302 of a `POST`) becomes a `GET` without
///   a body, as in browsers and `URLSession`;
/// - a `401` offering `Basic` (or a `407` with `Proxy-Authenticate: Basic`) is answered with the
///   credential Formwork gives; any other scheme, or no credential, delivers the challenge's
///   response as the response;
/// - each hop of an exchange goes out on AsyncHTTPClient's delegate API from the thread that
///   starts it, without a Swift task: the response's calls arrive on an event loop, Formwork's
///   events run there (they are cheap; a body that goes to disk is the exception, below), and
///   the caller waiting for the response is woken once;
/// - response bodies are streamed with back-pressure: the next part is read when the previous
///   one was handed over; when the body goes to disk (``TransportRequest/bodyMayBlock``) it is
///   handed to a serial queue, and reading pauses while more than 4 MiB wait there;
/// - request bodies from files and streams are read in 64 KiB chunks (constant memory), on a
///   queue of their own.
///
/// Not handled: cookies (`URLSession`'s `HTTPCookieStorage` has no equivalent here; set `Cookie`
/// headers with a request adapter) and automatic decompression (no `Accept-Encoding` is added and
/// compressed bodies arrive as sent).
///
/// Differences Formwork's behaviour suite shows against `URLSession` (see the Transports
/// article): AsyncHTTPClient allows 8 connections per host by default, and a request waiting for
/// one spends its idle timeout (raise `connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit`
/// on a client of your own when streams hold many); when a server cuts a body, the bytes
/// AsyncHTTPClient had read but not handed over are dropped (a resume asks for them again); a
/// `POST` on a reused connection the server had closed is not sent again (it fails as connection
/// lost, where libcurl re-sends it).
public final class AsyncHTTPClientTransport: Transport {
    /// The client the transport runs on when none is given: the default event loop group,
    /// redirects left to the transport, no decompression, no read timeout (Formwork watches idle
    /// timeouts itself). It is never shut down.
    public static let sharedClient = HTTPClient(
        eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: recommendedConfiguration)

    /// The client configuration the transport expects: redirects `.disallow`ed (the transport
    /// follows them itself so Formwork can decide each hop), decompression disabled, a failed
    /// connection attempt reported at once (as `URLSession` does: Formwork's retry policy decides
    /// about retries; AsyncHTTPClient would retry until its connect timeout, 10 s, before it
    /// reports a refused connection), and no timeouts of its own: Formwork's idle timeout (the
    /// form's or the session's) covers the whole exchange, from the wait for a free connection of
    /// the pool to the last byte, as `URLRequest.timeoutInterval` does for `URLSession`
    /// (AsyncHTTPClient's connect timeout, 10 s by default, would otherwise also fail a request
    /// that waits longer than that for a connection to a busy host). Start from it when you make
    /// your own client.
    public static var recommendedConfiguration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: .hours(24), read: nil),
            decompression: .disabled)
        configuration.connectionPool.retryConnectionEstablishment = false
        return configuration
    }

    /// The client that carries the requests.
    public let client: HTTPClient

    /// Creates a transport.
    ///
    /// `HTTPClient.shared` is not the default: it follows redirects itself (Formwork would not
    /// see them) and decompresses bodies. A client of your own should start from
    /// ``recommendedConfiguration``; you shut it down when you no longer need it.
    /// - Parameter client: The client to use (default ``sharedClient``).
    public init(client: HTTPClient = AsyncHTTPClientTransport.sharedClient) {
        self.client = client
    }

    /// Makes the task of one exchange: no I/O and no event until it is resumed.
    /// - Parameters:
    ///   - request: What to send.
    ///   - events: Where the exchange's events go.
    /// - Returns: The task, not started.
    public func makeTask(for request: TransportRequest, events: any TransportEvents) -> any TransportTask {
        AsyncHTTPClientTransportTask(client: client, request: request, events: events)
    }

    /// The most redirects one exchange follows before it fails with `.httpTooManyRedirects`.
    static let maximumRedirects = 16
    /// The most answers to one kind of challenge before its response is delivered as it is.
    static let maximumAuthenticationAnswers = 16
    /// Above this many queued response bytes (``TransportRequest/bodyMayBlock``) the network pauses…
    static let pauseThreshold = 4 << 20
    /// …until fewer than this many remain.
    static let resumeThreshold = 2 << 20
    /// The size of the chunks read from upload files and streams.
    static let uploadChunkSize = 64 << 10

    /// Turns an AsyncHTTPClient or SwiftNIO error into the `URLError` Formwork's retry and message
    /// rules know: refused → `.cannotConnectToHost`; connect, read and TLS handshake timeouts →
    /// `.timedOut`; a connection closed or reset mid-exchange → `.networkConnectionLost`;
    /// cancelled → `.cancelled`; TLS failures → `.secureConnectionFailed` (a certificate that does
    /// not verify → `.serverCertificateUntrusted`); bad URL → `.badURL`; unsupported scheme →
    /// `.unsupportedURL`; DNS → `.cannotFindHost`; anything else → `.unknown`. A `URLError` or
    /// `NetworkError` (the transport's own, or a body stream's) is returned as it is. The original
    /// error is kept as `NSUnderlyingErrorKey`.
    /// - Parameter error: What failed.
    /// - Returns: The error to finish the exchange with.
    static func urlError(for error: any Error) -> any Error {
        if error is URLError || error is NetworkError { return error }
        let userInfo: [String: Any] = [NSUnderlyingErrorKey: error, NSLocalizedDescriptionKey: "\(error)"]
        return URLError(code(for: error), userInfo: userInfo)
    }

    /// The `URLError` code of ``urlError(for:)``.
    private static func code(for error: any Error) -> URLError.Code {
        switch error {
        case let error as HTTPClientError:
            switch error {
            case .connectTimeout, .readTimeout, .writeTimeout, .tlsHandshakeTimeout, .deadlineExceeded,
                .getConnectionFromPoolTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout:
                return .timedOut
            case .remoteConnectionClosed, .uncleanShutdown: return .networkConnectionLost
            case .cancelled, .requestStreamCancelled: return .cancelled
            case .invalidURL, .emptyHost, .emptyScheme, .missingSocketPath: return .badURL
            default:
                return error.shortDescription == "Unsupported scheme" ? .unsupportedURL : .unknown
            }
        case is CancellationError: return .cancelled
        case let error as NIOConnectionError:
            // Every address refused, or none found.
            if let first = error.connectionErrors.first { return code(for: first.error) }
            return .cannotFindHost
        case is SocketAddressError: return .cannotFindHost
        case let error as IOError: return code(forErrno: error.errnoCode)
        case let error as ChannelError:
            switch error {
            case .connectTimeout: return .timedOut
            case .eof, .ioOnClosedChannel, .alreadyClosed, .outputClosed: return .networkConnectionLost
            default: return .unknown
            }
        case let error as HTTPParserError:
            return error == .invalidEOFState ? .networkConnectionLost : .badServerResponse
        case let error as NIOSSLError:
            return "\(error)".contains("CERTIFICATE_VERIFY_FAILED")
                ? .serverCertificateUntrusted : .secureConnectionFailed
        case let error as NIOSSLExtraError:
            return error == .failedToValidateHostname ? .serverCertificateUntrusted : .secureConnectionFailed
        case is BoringSSLError: return .secureConnectionFailed
        default:
            #if canImport(Network)
                if let error = error as? HTTPClient.NWPOSIXError {
                    return code(forErrno: error.errorCode.rawValue)
                }
                if error is HTTPClient.NWTLSError { return .secureConnectionFailed }
            #endif
            return .unknown
        }
    }

    /// The `URLError` code of a socket error number.
    private static func code(forErrno number: CInt) -> URLError.Code {
        switch number {
        case ECONNREFUSED, ENETUNREACH, EHOSTUNREACH, EADDRNOTAVAIL: return .cannotConnectToHost
        case ECONNRESET, EPIPE, ECONNABORTED: return .networkConnectionLost
        case ETIMEDOUT: return .timedOut
        default: return .unknown
        }
    }
}

/// One exchange: a chain of AsyncHTTPClient requests (one per redirect or answered challenge)
/// reported to Formwork as one.
///
/// Each hop goes out on AsyncHTTPClient's delegate API from the thread that starts it, with no
/// Swift task of its own, and with no preference for an event loop: the request takes whichever
/// idle connection the pool has, and AsyncHTTPClient calls this delegate on a loop of the group
/// (hopping there when the connection lives on another). Formwork's events run in those calls,
/// so the caller waiting for the response is woken once, by the loop. When the body may
/// block (``TransportRequest/bodyMayBlock``), every event goes out on ``delivery`` (a serial
/// queue) instead, and reading pauses while more than ``AsyncHTTPClientTransport/pauseThreshold``
/// bytes wait there. Either way events go out one at a time, in order.
final class AsyncHTTPClientTransportTask: TransportTask, HTTPClientResponseDelegate {
    typealias Response = Void

    /// What a response head leads to.
    enum HopMode: Sendable {
        /// Hand the body to Formwork.
        case deliver
        /// Discard the body, then send this request with this body.
        case follow(URLRequest, TransportRequest.Body)
        /// Discard the body: the exchange is being stopped.
        case stop
    }

    struct State: Sendable {
        var started = false
        var finished = false
        var cancelled = false
        /// An error the transport decided on (too many redirects), reported instead of the cancel.
        var failure: (any Error)?
        /// The AsyncHTTPClient request in flight.
        var current: HTTPClient.Task<Void>?
        /// What the current hop sends (sent again on a 307/308 or an answered challenge), and the
        /// length of its body if known.
        var hop: (request: URLRequest, body: TransportRequest.Body, expected: Int64?)?
        /// What the current hop's head led to.
        var mode = HopMode.deliver
        var redirects = 0
        var authenticationAnswers = 0
        var proxyAuthenticationAnswers = 0
        /// Request body bytes sent in the current hop.
        var sentBytes: Int64 = 0
        /// Response body bytes handed to ``delivery`` and not yet received by Formwork.
        var queuedBytes = 0
        /// The most that were ever queued (for tests of the back-pressure).
        var maximumQueuedBytes = 0
        /// Completed once the queue drained: the network is paused until then.
        var paused: EventLoopPromise<Void>?
    }

    let client: HTTPClient
    let request: TransportRequest
    let events: any TransportEvents
    let delivery: DispatchQueue?
    let state = NIOLockedValueBox(State())

    init(client: HTTPClient, request: TransportRequest, events: any TransportEvents) {
        self.client = client
        self.request = request
        self.events = events
        self.delivery = request.bodyMayBlock ? DispatchQueue(label: "formwork.asynchttpclient.delivery") : nil
    }

    /// The most response bytes that waited for Formwork at once.
    var maximumQueuedBodyBytes: Int { state.withLockedValue { $0.maximumQueuedBytes } }

    func resume() {
        let start = state.withLockedValue { state in
            defer { state.started = true }
            return !state.started && !state.finished
        }
        guard start else { return }
        startHop(request.urlRequest, body: request.body)
    }

    func cancel() {
        let (finishNow, current): (Bool, HTTPClient.Task<Void>?) = state.withLockedValue { state in
            guard !state.cancelled, !state.finished else { return (false, nil) }
            state.cancelled = true
            if !state.started { state.finished = true }
            return (state.finished, state.current)
        }
        if finishNow { events.finish(URLError(.cancelled)) }
        // Later, on the request's loop: a cancel from inside an event must not end the exchange
        // within that call.
        if let current { current.eventLoop.execute { current.cancel() } }
    }

    /// Runs an event where events run: inline on the loop, or on the delivery queue.
    private func deliver(_ work: @escaping @Sendable () -> Void) {
        if let delivery { delivery.async(execute: work) } else { work() }
    }

    /// Ends the exchange once with `error` (already in its final form; nil is success); a cancel
    /// or the transport's own failure wins.
    private func complete(_ error: (any Error)?) {
        let outcome: (error: (any Error)?, paused: EventLoopPromise<Void>?)? = state.withLockedValue {
            state in
            guard !state.finished else { return nil }
            state.finished = true
            // The exchange lets go of its AsyncHTTPClient task, whose delegate holds the exchange.
            state.current = nil
            defer { state.paused = nil }
            return (state.cancelled ? URLError(.cancelled) : state.failure ?? error, state.paused)
        }
        guard let outcome else { return }
        outcome.paused?.succeed()
        deliver { self.events.finish(outcome.error) }
    }

    // MARK: - Hops

    /// Sends one request of the exchange (the first, or the next after a redirect or challenge).
    private func startHop(_ urlRequest: URLRequest, body: TransportRequest.Body) {
        guard !state.withLockedValue({ $0.cancelled }) else { return complete(nil) }
        let made: (body: HTTPClient.Body?, expected: Int64?)
        do {
            made = try makeBody(body)
        } catch {
            // A body's own error (a stream factory's) is reported as it is.
            return complete(error)
        }
        let hop: HTTPClient.Request
        do {
            guard let url = urlRequest.url else { throw URLError(.badURL) }
            var headers = NIOHTTP1.HTTPHeaders()
            for (name, value) in urlRequest.allHTTPHeaderFields ?? [:] {
                switch Self.asciiLowercased(name) {
                case "content-length", "transfer-encoding": continue
                default: headers.add(name: name, value: value)
                }
            }
            hop = try HTTPClient.Request(
                url: url, method: NIOHTTP1.HTTPMethod(rawValue: urlRequest.httpMethod ?? "GET"),
                headers: headers, body: made.body)
        } catch {
            return complete(AsyncHTTPClientTransport.urlError(for: error))
        }
        state.withLockedValue { state in
            state.mode = .deliver
            state.sentBytes = 0
            state.hop = (urlRequest, body, made.expected)
        }
        let task = client.execute(request: hop, delegate: self, deadline: nil)
        // The hop's end, whichever way it ends (also a request the client refused at once, which
        // never reaches the delegate).
        task.futureResult.whenComplete { result in
            switch result {
            case .success: self.hopFinished()
            case .failure(let error): self.complete(AsyncHTTPClientTransport.urlError(for: error))
            }
        }
        let cancelled = state.withLockedValue { state in
            if !state.finished { state.current = task }
            return state.cancelled
        }
        if cancelled { task.eventLoop.execute { task.cancel() } }
    }

    /// The body of one hop, and its length if known. A stream's factory is called here, so each
    /// hop sends a fresh stream and a throwing factory ends the exchange with its error.
    private func makeBody(_ body: TransportRequest.Body) throws -> (body: HTTPClient.Body?, expected: Int64?)
    {
        switch body {
        case .none:
            return (nil, nil)
        case .data(let data):
            return (.byteBuffer(ByteBuffer(data: data)), Int64(data.count))
        case .file(let url):
            let size: Int64
            do {
                let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
                size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
            } catch {
                throw URLError(.fileDoesNotExist, userInfo: [NSUnderlyingErrorKey: error])
            }
            let loops = client.eventLoopGroup
            return (
                .stream(contentLength: size) { writer in
                    ChunkSource(file: url).pump(to: writer, on: loops.any())
                }, size
            )
        case .stream(let factory):
            let source = ChunkSource(stream: try factory())
            let loops = client.eventLoopGroup
            return (.stream(contentLength: nil) { writer in source.pump(to: writer, on: loops.any()) }, nil)
        }
    }

    /// The current hop ended with its whole response: follow the next hop, or end the exchange.
    private func hopFinished() {
        let mode = state.withLockedValue { $0.mode }
        switch mode {
        case .follow(let next, let body): startHop(next, body: body)
        case .deliver, .stop: complete(nil)
        }
    }

    // MARK: - AsyncHTTPClient's calls, on the hop's loop

    /// Request body bytes the connection wrote.
    func didSendRequestPart(task: HTTPClient.Task<Void>, _ part: IOData) {
        guard part.readableBytes > 0 else { return }
        let (total, expected) = state.withLockedValue { state in
            state.sentBytes += Int64(part.readableBytes)
            return (state.sentBytes, state.hop?.expected)
        }
        deliver { self.events.sent(totalBytes: total, expectedBytes: expected) }
    }

    // The end (success or error) is read from the hop's future: see `startHop`.
    func didFinishRequest(task: HTTPClient.Task<Void>) throws {}

    /// Decides what the head leads to (asking Formwork where the rules are its own), then lets
    /// the body come. With a delivery queue the decision waits there for earlier events (cheap
    /// ones: no body is queued before a head): answering the head at once keeps AsyncHTTPClient
    /// from holding body bytes that an error arriving meanwhile would drop.
    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        let mode = delivery.map { queue in queue.sync { decide(head) } } ?? decide(head)
        state.withLockedValue { $0.mode = mode }
        // Cancelling the hop drops what is left of its body.
        if case .stop = mode { task.eventLoop.execute { task.cancel() } }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    private func decide(_ head: HTTPResponseHead) -> HopMode {
        guard let hop = state.withLockedValue({ $0.hop }), let url = hop.request.url else {
            state.withLockedValue { $0.failure = URLError(.badServerResponse) }
            return .stop
        }
        let parts = Self.head(of: head, url: url)
        if let next = redirect(head, parts: parts, of: (hop.request, hop.body)) { return next }
        if let next = answerChallenge(head, of: (hop.request, hop.body)) { return next }
        // The parts, not an `HTTPURLResponse`: Formwork makes one only if something asks for it.
        if events.receiveResponseHead(parts) { return .deliver }
        state.withLockedValue { $0.cancelled = true }
        return .stop
    }

    /// The next hop of a redirect Formwork agrees to follow; nil delivers the response.
    private func redirect(
        _ head: HTTPResponseHead, parts: TransportResponseHead,
        of hop: (request: URLRequest, body: TransportRequest.Body)
    ) -> HopMode? {
        let status = Int(head.status.code)
        guard [301, 302, 303, 307, 308].contains(status), let url = hop.request.url,
            let location = head.headers.first(name: "Location"),
            let target = URL(string: location, relativeTo: url)?.absoluteURL,
            ["http", "https"].contains(target.scheme?.lowercased() ?? "")
        else { return nil }
        guard state.withLockedValue({ $0.redirects }) < AsyncHTTPClientTransport.maximumRedirects else {
            state.withLockedValue { $0.failure = URLError(.httpTooManyRedirects) }
            return .stop
        }
        var next = hop.request
        next.url = target
        let method = (hop.request.httpMethod ?? "GET").uppercased()
        let keepsBody = status == 307 || status == 308
        if (status == 303 && method != "HEAD") || ((status == 301 || status == 302) && method == "POST") {
            next.httpMethod = "GET"
            for name in ["Content-Type", "Content-Length", "Transfer-Encoding"] {
                next.setValue(nil, forHTTPHeaderField: name)
            }
        }
        guard let response = parts.httpURLResponse(), let chosen = events.redirect(response, to: next) else {
            return nil
        }
        state.withLockedValue { $0.redirects += 1 }
        return .follow(chosen, keepsBody ? hop.body : .none)
    }

    /// The same request with a Basic credential, for a 401 or 407 offering Basic that Formwork
    /// answers; nil delivers the response.
    private func answerChallenge(
        _ head: HTTPResponseHead, of hop: (request: URLRequest, body: TransportRequest.Body)
    ) -> HopMode? {
        let isProxy: Bool
        switch head.status.code {
        case 401: isProxy = false
        case 407: isProxy = true
        default: return nil
        }
        let challenges = head.headers[isProxy ? "Proxy-Authenticate" : "WWW-Authenticate"]
        let offersBasic = challenges.flatMap { $0.split(separator: ",") }.contains { challenge in
            challenge.split(separator: " ").first?.lowercased() == "basic"
        }
        let failures = state.withLockedValue {
            isProxy ? $0.proxyAuthenticationAnswers : $0.authenticationAnswers
        }
        guard offersBasic, failures < AsyncHTTPClientTransport.maximumAuthenticationAnswers,
            let credential = events.credential(isProxy: isProxy, previousFailures: failures)
        else { return nil }
        state.withLockedValue { state in
            if isProxy { state.proxyAuthenticationAnswers += 1 } else { state.authenticationAnswers += 1 }
        }
        var next = hop.request
        let token = Data("\(credential.user):\(credential.password)".utf8).base64EncodedString()
        next.setValue("Basic \(token)", forHTTPHeaderField: isProxy ? "Proxy-Authorization" : "Authorization")
        return .follow(next, hop.body)
    }

    /// The head of a response, its fields in the order received.
    static func head(of head: HTTPResponseHead, url: URL) -> TransportResponseHead {
        TransportResponseHead(
            url: url, statusCode: Int(head.status.code),
            httpVersion: "HTTP/\(head.version.major).\(head.version.minor)",
            headerFields: head.headers.map { HTTPHeader(name: $0.name, value: $0.value) })
    }

    /// `name` with ASCII capitals made small (field names are ASCII tokens): far cheaper than
    /// `lowercased()`, which handles all of Unicode.
    private static func asciiLowercased(_ name: String) -> String {
        var bytes = Array(name.utf8)
        for index in bytes.indices where bytes[index] >= 0x41 && bytes[index] <= 0x5A {
            bytes[index] |= 0x20
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Body bytes: to Formwork (inline, or queued with back-pressure), or dropped while a redirect
    /// or challenge is being followed.
    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let (mode, cancelled) = state.withLockedValue { ($0.mode, $0.cancelled) }
        guard case .deliver = mode, !cancelled else { return task.eventLoop.makeSucceededVoidFuture() }
        let data = Data(buffer: buffer, byteTransferStrategy: .noCopy)
        guard let delivery else {
            events.receiveBody(data)
            return task.eventLoop.makeSucceededVoidFuture()
        }
        let count = data.count
        let paused: EventLoopPromise<Void>? = state.withLockedValue { state in
            state.queuedBytes += count
            state.maximumQueuedBytes = max(state.maximumQueuedBytes, state.queuedBytes)
            guard state.queuedBytes >= AsyncHTTPClientTransport.pauseThreshold, !state.finished else {
                return nil
            }
            let promise = state.paused ?? task.eventLoop.makePromise(of: Void.self)
            state.paused = promise
            return promise
        }
        delivery.async {
            self.events.receiveBody(data)
            let resume: EventLoopPromise<Void>? = self.state.withLockedValue { state in
                state.queuedBytes -= count
                guard state.queuedBytes < AsyncHTTPClientTransport.resumeThreshold else { return nil }
                defer { state.paused = nil }
                return state.paused
            }
            resume?.succeed()
        }
        return paused?.futureResult ?? task.eventLoop.makeSucceededVoidFuture()
    }
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
