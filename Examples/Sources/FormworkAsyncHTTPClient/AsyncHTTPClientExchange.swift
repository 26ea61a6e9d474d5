import AsyncHTTPClient
import Formwork
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOSSL

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One exchange: a chain of AsyncHTTPClient requests (one per redirect or answered challenge)
/// reported to Formwork as one.
///
/// Each hop goes out on AsyncHTTPClient's delegate API from the thread that starts it, with no
/// Swift task of its own. AsyncHTTPClient calls this delegate on the loop ``LoopChooser`` picks
/// (hopping there when the connection lives on another loop); Formwork's events run in those
/// calls, so the caller waiting for the response is woken once, by the loop. When the body may
/// block (``TransportRequest/bodyMayBlock``), every event goes out on ``delivery`` (a serial
/// queue) instead, and the body goes there in batches (``BodyBatches``): one hand-over in flight
/// at a time, the parts that arrive meanwhile gathered into one buffer, and reading paused while
/// ``AsyncHTTPClientTransport/batchLimit`` bytes wait. Either way events go out one at a time, in
/// order.
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
        /// The pinned host the current hop goes to, if its host has pins.
        var pinned: PinnedHost?
        var redirects = 0
        var authenticationAnswers = 0
        var proxyAuthenticationAnswers = 0
        /// Request body bytes sent in the current hop.
        var sentBytes: Int64 = 0
        /// The response body on its way to ``delivery``: the batch Formwork is receiving and the
        /// parts gathered meanwhile.
        var body = BodyBatches(limit: AsyncHTTPClientTransport.batchLimit)
        /// Completed once the writer took the gathered parts: the network is paused until then.
        var paused: EventLoopPromise<Void>?
    }

    /// The transport: its client, loop chooser, clients of pinned hosts and requests made before.
    let transport: AsyncHTTPClientTransport
    let request: TransportRequest
    let events: any TransportEvents
    let delivery: DispatchQueue?
    let state = NIOLockedValueBox(State())

    init(transport: AsyncHTTPClientTransport, request: TransportRequest, events: any TransportEvents) {
        self.transport = transport
        self.request = request
        self.events = events
        self.delivery = request.bodyMayBlock ? DispatchQueue(label: "formwork.asynchttpclient.delivery") : nil
    }

    /// The most response bytes that were held for Formwork at once (the batch it was receiving and
    /// the parts gathered meanwhile).
    var maximumQueuedBodyBytes: Int { state.withLockedValue { $0.body.maximumHeldBytes } }

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
        if let delivery {
            delivery.async { self.events.finish(outcome.error) }
        } else {
            events.finish(outcome.error)
        }
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
        var route: (tls: TLSConfiguration?, pinned: PinnedHost?) = (nil, nil)
        do {
            guard let url = urlRequest.url else { throw URLError(.badURL) }
            if let trust = request.trust { route = try trustRoute(for: url, trust: trust) }
            let method = urlRequest.httpMethod ?? "GET"
            let fields = urlRequest.allHTTPHeaderFields ?? [:]
            // Only a request without a body or TLS settings of its own is the same when sent again.
            let key =
                made.body == nil && route.tls == nil
                ? HopRequests.Key(url: url, method: method, fields: fields) : nil
            if let key, let known = transport.hopRequests.request(for: key) {
                hop = known
            } else {
                var headers = NIOHTTP1.HTTPHeaders()
                for (name, value) in fields where !Self.isFraming(name) {
                    headers.add(name: name, value: value)
                }
                hop = try HTTPClient.Request(
                    url: url, method: NIOHTTP1.HTTPMethod(rawValue: method), headers: headers,
                    body: made.body, tlsConfiguration: route.tls)
                if let key { transport.hopRequests.remember(hop, for: key) }
            }
        } catch {
            return complete(AsyncHTTPClientTransport.urlError(for: error))
        }
        state.withLockedValue { state in
            state.mode = .deliver
            state.sentBytes = 0
            state.hop = (urlRequest, body, made.expected)
            state.pinned = route.pinned
        }
        let loop = transport.loops.take()
        let client = route.pinned?.client ?? transport.client
        let task = client.execute(request: hop, delegate: self, eventLoop: .delegate(on: loop), deadline: nil)
        // The hop's end, whichever way it ends (also a request the client refused at once, which
        // never reaches the delegate): the loop goes back first.
        task.futureResult.whenComplete { result in
            self.transport.loops.giveBack(loop)
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

    /// How a hop to a host the session's trust policy has rules for goes out: the TLS
    /// configuration with its anchors (instead of the system's roots) and its client certificate,
    /// on AsyncHTTPClient's default client configuration (`TLSConfiguration.makeClientConfiguration()`:
    /// the client's own TLS configuration cannot be read), `nil` for a host without anchors or
    /// identity (the client's configuration, at no cost); and, for a host with pins that are not
    /// expired, the pinned host whose client checks every new connection before a request goes
    /// out on it (see ``PinnedHosts``). An expired pin set is reported and not enforced.
    private func trustRoute(for url: URL, trust: TrustEvaluator) throws -> (
        tls: TLSConfiguration?, pinned: PinnedHost?
    ) {
        guard url.scheme?.lowercased() == "https", let host = url.host else { return (nil, nil) }
        let rules = trust.rules(forHost: host)
        guard !rules.isEmpty else { return (nil, nil) }
        var pinned: PinnedHost?
        if let pinSet = rules.pinSet, pinSet.expires.map({ Date() < $0 }) ?? true {
            pinned = transport.pinnedHosts.host(for: rules, pinSet: pinSet)
        } else if let refusal = trust.refusal(
            forHostWithoutEvaluation: host, transportName: "the AsyncHTTPClient transport",
            appliesAnchorsAndIdentity: true)
        {
            // Not reached (an expired set is only reported), unless a rule is added that this
            // transport does not apply: refuse rather than send.
            throw refusal
        }
        guard rules.anchors != nil || rules.clientIdentity != nil else { return (nil, pinned) }
        var tls = TLSConfiguration.makeClientConfiguration()
        do {
            if let anchors = rules.anchors {
                tls.trustRoots = .certificates(
                    try anchors.certificates.map { try NIOSSLCertificate(bytes: [UInt8]($0), format: .der) })
                tls.additionalTrustRoots = []
            }
            if let identity = rules.clientIdentity {
                let bundle = try NIOSSLPKCS12Bundle(
                    buffer: [UInt8](identity.pkcs12), passphrase: Array(identity.password.utf8))
                tls.certificateChain = bundle.certificateChain.map { .certificate($0) }
                tls.privateKey = .privateKey(bundle.privateKey)
            }
        } catch {
            throw NetworkError(
                .invalidTrustPolicy,
                failureReason:
                    "The trust anchors or client identity for \(rules.host) cannot be used: \(error).",
                details: .init(reason: .invalidCertificate, host: rules.host), underlyingError: error)
        }
        return (tls, pinned)
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
            let loops = transport.client.eventLoopGroup
            return (
                .stream(contentLength: size) { writer in
                    ChunkSource(file: url).pump(to: writer, on: loops.any())
                }, size
            )
        case .stream(let factory):
            let source = ChunkSource(stream: try factory())
            let loops = transport.client.eventLoopGroup
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
        if let delivery {
            delivery.async { self.events.sent(totalBytes: total, expectedBytes: expected) }
        } else {
            events.sent(totalBytes: total, expectedBytes: expected)
        }
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
        let (hop, pinned) = state.withLockedValue { ($0.hop, $0.pinned) }
        guard let hop, let url = hop.request.url else {
            state.withLockedValue { $0.failure = URLError(.badServerResponse) }
            return .stop
        }
        if let pinned, pinned.pinSet.mode == .reportOnly {
            // The connection passed whatever its chain (the set only reports): each request to the
            // host reports a mismatch, with the chain of the host's latest connection.
            _ = request.trust?.evaluate(host: pinned.host, certificateChain: pinned.checker.latestChain)
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
            httpVersion: head.version == .http1_1
                ? "HTTP/1.1" : "HTTP/\(head.version.major).\(head.version.minor)",
            headerFields: head.headers.map { HTTPHeader(name: $0.name, value: $0.value) })
    }

    /// Whether `name` is `Content-Length` or `Transfer-Encoding` (ASCII letter case ignored),
    /// which AsyncHTTPClient sets from the body: compared in place, with no new string.
    private static func isFraming(_ name: String) -> Bool {
        let count = name.utf8.count
        guard count == 14 || count == 17 else { return false }
        let wanted = count == 14 ? "content-length" : "transfer-encoding"
        return name.utf8.elementsEqual(wanted.utf8) { ($0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0) == $1 }
    }

    /// Body bytes: to Formwork (inline, or in batches on ``delivery`` with back-pressure), or
    /// dropped while a redirect or challenge is being followed.
    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        guard let delivery else {
            let (mode, cancelled) = state.withLockedValue { ($0.mode, $0.cancelled) }
            if case .deliver = mode, !cancelled {
                events.receiveBody(Data(buffer: buffer, byteTransferStrategy: .noCopy))
            }
            return task.eventLoop.makeSucceededVoidFuture()
        }
        let (first, paused) = state.withLockedValue { state -> (ByteBuffer?, EventLoopFuture<Void>?) in
            guard case .deliver = state.mode, !state.cancelled, !state.finished else { return (nil, nil) }
            switch state.body.receive(buffer) {
            case .handOver(let batch):
                return (batch, nil)
            case .gathered(let full):
                guard full else { return (nil, nil) }
                let promise = state.paused ?? task.eventLoop.makePromise(of: Void.self)
                state.paused = promise
                return (nil, promise.futureResult)
            }
        }
        if let first { delivery.async { self.writeBatches(startingWith: first) } }
        return paused ?? task.eventLoop.makeSucceededVoidFuture()
    }

    /// Hands the body to Formwork on ``delivery``, one batch per call, until none waits: the part
    /// that found the writer idle, then each batch gathered while the one before was received.
    /// Taking a batch lets the network go on (if it was paused) while Formwork receives it.
    private func writeBatches(startingWith first: ByteBuffer) {
        var batch: ByteBuffer? = first
        // The first batch is AsyncHTTPClient's own buffer; the gathered ones are the exchange's,
        // given back for the next gathering once received.
        var gathered = false
        while let current = batch.take() {
            events.receiveBody(Data(buffer: current, byteTransferStrategy: .noCopy))
            // Moved, not copied: the buffer's memory is reused only when no one else holds it.
            var used = gathered ? Optional(consume current) : nil
            let resume = state.withLockedValue { state -> EventLoopPromise<Void>? in
                // A cancelled exchange reports nothing more: what was gathered is dropped.
                if state.cancelled { state.body.discard() }
                batch = state.body.next(givingBack: &used)
                defer { state.paused = nil }
                return state.paused
            }
            resume?.succeed()
            gathered = true
        }
    }
}
