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
/// - each exchange runs in one Swift task on AsyncHTTPClient's `async` API, so no work of the
///   exchange runs on an event loop and the connection may live on any loop of the group;
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
/// The exchange runs in one Swift task on AsyncHTTPClient's `async` API, so its events go out one
/// at a time and in order, and nothing runs on an event loop: AsyncHTTPClient serves the request
/// on whichever loop its connection lives. Where the runtime offers it (`Task.immediate`: Linux,
/// and Apple platforms from the 2025 releases), the task starts on the thread that resumes it, so
/// the request reaches the connection pool without a hop. When the body may block, it goes out
/// on ``delivery`` (a serial queue) and the task waits while more than
/// ``AsyncHTTPClientTransport/pauseThreshold`` bytes are queued there.
final class AsyncHTTPClientTransportTask: TransportTask {
    /// What a response head leads to.
    enum HopMode: Sendable {
        /// Hand the body to Formwork.
        case deliver
        /// Discard the body, then send this request with this body.
        case follow(URLRequest, TransportRequest.Body)
        /// Drop the body: the exchange is being stopped.
        case stop
    }

    struct State: Sendable {
        var started = false
        var finished = false
        var cancelled = false
        /// An error the transport decided on (too many redirects), reported instead of the cancel.
        var failure: (any Error)?
        /// The Swift task that runs the exchange.
        var runner: Task<Void, Never>?
        var redirects = 0
        var authenticationAnswers = 0
        var proxyAuthenticationAnswers = 0
        /// Request body bytes handed to AsyncHTTPClient in the current hop.
        var sentBytes: Int64 = 0
        /// Response body bytes handed to ``delivery`` and not yet received by Formwork.
        var queuedBytes = 0
        /// The most that were ever queued (for tests of the back-pressure).
        var maximumQueuedBytes = 0
        /// The exchange waiting for the queue to drain.
        var paused: CheckedContinuation<Void, Never>?
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
        let runner: Task<Void, Never>
        if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
            runner = Task.immediate { await self.run() }
        } else {
            runner = Task { await self.run() }
        }
        let cancelled = state.withLockedValue { state in
            if !state.finished { state.runner = runner }
            return state.cancelled
        }
        if cancelled { runner.cancel() }
    }

    func cancel() {
        let (finishNow, runner): (Bool, Task<Void, Never>?) = state.withLockedValue { state in
            guard !state.cancelled, !state.finished else { return (false, nil) }
            state.cancelled = true
            if !state.started { state.finished = true }
            return (state.finished, state.runner)
        }
        if finishNow { events.finish(URLError(.cancelled)) }
        // Cancelling the task only marks it: the exchange ends (and reports) on its own thread,
        // never inside this call.
        runner?.cancel()
    }

    /// Runs an event where events run: in the exchange's task, or on the delivery queue.
    private func deliver(_ work: @escaping @Sendable () -> Void) {
        if let delivery { delivery.async(execute: work) } else { work() }
    }

    /// Ends the exchange once with `error` (already in its final form; nil is success); a cancel
    /// or the transport's own failure wins.
    private func complete(_ error: (any Error)?) {
        let outcome: (any Error)?? = state.withLockedValue { state in
            guard !state.finished else { return nil }
            state.finished = true
            state.runner = nil
            return .some(state.cancelled ? URLError(.cancelled) : state.failure ?? error)
        }
        guard let outcome else { return }
        deliver { self.events.finish(outcome) }
    }

    // MARK: - Hops

    /// The whole exchange: the first request, then the next after each followed redirect or
    /// answered challenge.
    func run() async {
        var (urlRequest, body) = (request.urlRequest, request.body)
        while true {
            guard !state.withLockedValue({ $0.cancelled }) else { return complete(nil) }
            let hop: HTTPClientRequest
            let expected: Int64?
            do {
                (hop, expected) = try makeRequest(urlRequest, body: body)
            } catch {
                // A body's own error (a stream factory's) is reported as it is.
                return complete(error)
            }
            let response: HTTPClientResponse
            do {
                response = try await client.execute(hop, deadline: .distantFuture)
            } catch {
                return complete(AsyncHTTPClientTransport.urlError(for: error))
            }
            // A body handed over in one piece (`.data`) is reported sent when the head arrives: the
            // `async` API reports no writes. (A server that answers before it read the whole
            // body makes this an overstatement; files and streams are counted chunk by chunk.)
            if let expected {
                let unreported = expected - state.withLockedValue { $0.sentBytes }
                if unreported > 0 { reportSent(Int(unreported), expected: expected) }
            }
            let mode =
                delivery.map { queue in queue.sync { decide(response, of: urlRequest, body: body) } }
                ?? decide(response, of: urlRequest, body: body)
            do {
                switch mode {
                case .deliver:
                    try await receiveBody(of: response)
                    return complete(nil)
                case .follow(let next, let nextBody):
                    for try await _ in response.body {}
                    (urlRequest, body) = (next, nextBody)
                case .stop:
                    // Dropping the response cancels what is left of it.
                    return complete(nil)
                }
            } catch {
                return complete(AsyncHTTPClientTransport.urlError(for: error))
            }
        }
    }

    /// AsyncHTTPClient's request for one hop, and the length of its body if known. A stream's
    /// factory is called here, so each hop sends a fresh stream and a throwing factory ends the
    /// exchange with its error.
    private func makeRequest(_ urlRequest: URLRequest, body: TransportRequest.Body) throws
        -> (HTTPClientRequest, Int64?)
    {
        guard let url = urlRequest.url else { throw URLError(.badURL) }
        var hop = HTTPClientRequest(url: url.absoluteString)
        hop.method = NIOHTTP1.HTTPMethod(rawValue: urlRequest.httpMethod ?? "GET")
        for (name, value) in urlRequest.allHTTPHeaderFields ?? [:] {
            switch Self.asciiLowercased(name) {
            case "content-length", "transfer-encoding": continue
            default: hop.headers.add(name: name, value: value)
            }
        }
        state.withLockedValue { $0.sentBytes = 0 }
        switch body {
        case .none:
            return (hop, nil)
        case .data(let data):
            hop.body = .bytes(ByteBuffer(data: data))
            return (hop, Int64(data.count))
        case .file(let url):
            let size: Int64
            do {
                let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
                size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
            } catch {
                throw URLError(.fileDoesNotExist, userInfo: [NSUnderlyingErrorKey: error])
            }
            hop.body = .stream(chunks(of: ChunkSource(file: url), expected: size), length: .known(size))
            return (hop, size)
        case .stream(let factory):
            hop.body = .stream(
                chunks(of: ChunkSource(stream: try factory()), expected: nil), length: .unknown)
            return (hop, nil)
        }
    }

    /// The chunks of an upload, each reported sent as AsyncHTTPClient takes it (it takes the next
    /// one when the connection can write more).
    private func chunks(of source: ChunkSource, expected: Int64?) -> UploadChunks {
        UploadChunks(source: source) { [weak self] count in self?.reportSent(count, expected: expected) }
    }

    private func reportSent(_ count: Int, expected: Int64?) {
        guard count > 0 else { return }
        let total = state.withLockedValue { state in
            state.sentBytes += Int64(count)
            return state.sentBytes
        }
        deliver { self.events.sent(totalBytes: total, expectedBytes: expected) }
    }

    /// Decides what a response leads to, asking Formwork where the rules are its own. With a
    /// delivery queue the decision waits there for earlier events.
    private func decide(_ response: HTTPClientResponse, of request: URLRequest, body: TransportRequest.Body)
        -> HopMode
    {
        guard let url = request.url else {
            state.withLockedValue { $0.failure = URLError(.badServerResponse) }
            return .stop
        }
        let head = Self.head(of: response, url: url)
        if let next = redirect(response, head: head, of: request, body: body) { return next }
        if let next = answerChallenge(response, of: request, body: body) { return next }
        // The parts, not an `HTTPURLResponse`: Formwork makes one only if something asks for it.
        if events.receiveResponseHead(head) { return .deliver }
        state.withLockedValue { $0.cancelled = true }
        return .stop
    }

    /// The next hop of a redirect Formwork agrees to follow; nil delivers the response.
    private func redirect(
        _ response: HTTPClientResponse, head: TransportResponseHead, of request: URLRequest,
        body: TransportRequest.Body
    ) -> HopMode? {
        let status = Int(response.status.code)
        guard [301, 302, 303, 307, 308].contains(status), let url = request.url,
            let location = response.headers.first(name: "Location"),
            let target = URL(string: location, relativeTo: url)?.absoluteURL,
            ["http", "https"].contains(target.scheme?.lowercased() ?? "")
        else { return nil }
        guard state.withLockedValue({ $0.redirects }) < AsyncHTTPClientTransport.maximumRedirects else {
            state.withLockedValue { $0.failure = URLError(.httpTooManyRedirects) }
            return .stop
        }
        var next = request
        next.url = target
        let method = (request.httpMethod ?? "GET").uppercased()
        let keepsBody = status == 307 || status == 308
        if (status == 303 && method != "HEAD") || ((status == 301 || status == 302) && method == "POST") {
            next.httpMethod = "GET"
            for name in ["Content-Type", "Content-Length", "Transfer-Encoding"] {
                next.setValue(nil, forHTTPHeaderField: name)
            }
        }
        guard let redirect = head.httpURLResponse(), let chosen = events.redirect(redirect, to: next) else {
            return nil
        }
        state.withLockedValue { $0.redirects += 1 }
        return .follow(chosen, keepsBody ? body : .none)
    }

    /// The same request with a Basic credential, for a 401 or 407 offering Basic that Formwork
    /// answers; nil delivers the response.
    private func answerChallenge(
        _ response: HTTPClientResponse, of request: URLRequest, body: TransportRequest.Body
    ) -> HopMode? {
        let isProxy: Bool
        switch response.status.code {
        case 401: isProxy = false
        case 407: isProxy = true
        default: return nil
        }
        let challenges = response.headers[isProxy ? "Proxy-Authenticate" : "WWW-Authenticate"]
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
        var next = request
        let token = Data("\(credential.user):\(credential.password)".utf8).base64EncodedString()
        next.setValue("Basic \(token)", forHTTPHeaderField: isProxy ? "Proxy-Authorization" : "Authorization")
        return .follow(next, body)
    }

    /// The head of a response, its fields in the order received.
    static func head(of response: HTTPClientResponse, url: URL) -> TransportResponseHead {
        TransportResponseHead(
            url: url, statusCode: Int(response.status.code),
            httpVersion: "HTTP/\(response.version.major).\(response.version.minor)",
            headerFields: response.headers.map { HTTPHeader(name: $0.name, value: $0.value) })
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

    /// Hands the body to Formwork: inline, or queued with back-pressure when it may block.
    private func receiveBody(of response: HTTPClientResponse) async throws {
        for try await buffer in response.body {
            let data = Data(buffer: buffer, byteTransferStrategy: .noCopy)
            guard let delivery else {
                events.receiveBody(data)
                continue
            }
            let count = data.count
            let mustPause = state.withLockedValue { state in
                state.queuedBytes += count
                state.maximumQueuedBytes = max(state.maximumQueuedBytes, state.queuedBytes)
                return state.queuedBytes >= AsyncHTTPClientTransport.pauseThreshold
            }
            delivery.async {
                self.events.receiveBody(data)
                let waiting: CheckedContinuation<Void, Never>? = self.state.withLockedValue { state in
                    state.queuedBytes -= count
                    guard state.queuedBytes < AsyncHTTPClientTransport.resumeThreshold else { return nil }
                    defer { state.paused = nil }
                    return state.paused
                }
                waiting?.resume()
            }
            if mustPause {
                await withCheckedContinuation { continuation in
                    let goOn = state.withLockedValue { state in
                        guard state.queuedBytes >= AsyncHTTPClientTransport.resumeThreshold else {
                            return true
                        }
                        state.paused = continuation
                        return false
                    }
                    if goOn { continuation.resume() }
                }
            }
        }
    }
}

/// An upload body as AsyncHTTPClient takes it: chunks read off the caller's threads, on the
/// source's own queue, one at a time.
struct UploadChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let source: ChunkSource
    /// Called with each chunk's size as it is handed over.
    let taken: @Sendable (Int) -> Void

    struct AsyncIterator: AsyncIteratorProtocol {
        let chunks: UploadChunks

        mutating func next() async throws -> ByteBuffer? {
            let source = chunks.source
            let chunk: Data? = try await withCheckedThrowingContinuation { continuation in
                source.queue.async {
                    do {
                        let chunk = try source.read()
                        if chunk == nil { source.close() }
                        continuation.resume(returning: chunk)
                    } catch {
                        source.close()
                        continuation.resume(throwing: error)
                    }
                }
            }
            guard let chunk else { return nil }
            chunks.taken(chunk.count)
            return ByteBuffer(data: chunk)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(chunks: self) }
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
