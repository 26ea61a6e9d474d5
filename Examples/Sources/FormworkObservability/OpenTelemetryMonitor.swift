import Formwork
import Foundation
import Metrics
import OTelSemanticConventions
import Tracing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The ``EventMonitor`` half of ``OpenTelemetryObservation``: ends each request's client spans and
/// records the HTTP client metrics.
///
/// One span per request sent: each attempt (retries, reloads, an event stream's connections) and
/// each redirect hop.
struct OpenTelemetryMonitor: EventMonitor {
    let tracer: any Tracer
    let metrics: any MetricsFactory
    let redaction: Redaction
    let pending: PendingSpans
    private let state = Locked(State())

    init(tracer: any Tracer, metrics: any MetricsFactory, redaction: Redaction, pending: PendingSpans) {
        self.tracer = tracer
        self.metrics = metrics
        self.redaction = redaction
        self.pending = pending
    }

    /// The requests in flight, and the outbox entries being sent.
    struct State: Sendable {
        var flights: [UUID: Flight] = [:]
        /// Told by the outbox before the request starts; taken at the request's end.
        var outboxSends: [UUID: OutboxSend] = [:]
    }

    /// An outbox entry a request sends.
    struct OutboxSend: Sendable {
        let entryID: UUID
        let attempt: Int
    }

    /// What the monitor keeps of a request between its start and its end.
    struct Flight: Sendable {
        /// The span of what is being sent now, if any.
        var span: (any Span)?
        /// The parent of the request's spans.
        var parent: InstrumentationContext
        /// When the current span's request was sent (`DispatchTime` nanoseconds).
        var sentAt: UInt64
        /// The spans already ended (each later span is a resend).
        var ended = 0
        /// The request's dimensions (method, server, scheme), fixed at its first start.
        var dimensions: Dimensions
        /// Whether the current span joined another request's exchange.
        var coalesced = false
        /// Whether the next span is an event stream's new connection.
        var reconnects = false
    }

    /// The dimensions a request has before it gets a response.
    struct Dimensions: Sendable {
        var method: HTTPMethodName
        var address: String?
        var port: Int?
        var scheme: String?

        init(_ request: URLRequest) {
            method = HTTPMethodName(request.httpMethod)
            address = request.url?.host
            scheme = request.url?.scheme?.lowercased()
            port = request.url?.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil)
        }

        var pairs: [(String, String)] {
            var pairs = [(OTelAttribute.http.request.method, method.recorded)]
            if let address { pairs.append((OTelAttribute.server.address, address)) }
            if let port { pairs.append((OTelAttribute.server.port, String(port))) }
            if let scheme { pairs.append((OTelAttribute.url.scheme, scheme)) }
            return pairs
        }
    }

    // MARK: Events

    func requestDidStart(_ id: UUID, request: URLRequest, attempt: Int) {
        begin(id, request: request, attempt: attempt, leaderID: nil)
    }

    func requestDidCoalesce(_ id: UUID, request: URLRequest, attempt: Int, sharingWith leaderID: UUID) {
        begin(id, request: request, attempt: attempt, leaderID: leaderID)
    }

    func requestWillRedirect(
        _ id: UUID, after response: HTTPURLResponse, to request: URLRequest, attempt: Int
    ) {
        guard let (ended, count) = endCurrent(id, status: response.statusCode, error: nil) else { return }
        record(ended)
        let span = tracer.startSpan(
            HTTPMethodName(request.httpMethod).spanName(template: nil), context: ended.flight.parent,
            ofKind: .client)
        describe(span, request: request, attempt: attempt, resends: count, reason: "redirect")
        state.withLock { state in
            state.flights[id]?.span = span
            state.flights[id]?.sentAt = DispatchTime.now().uptimeNanoseconds
        }
    }

    func requestWillRetry(_ id: UUID, after error: NetworkError, delay: TimeInterval, retryCount: Int) {
        guard let (ended, _) = endCurrent(id, status: error.statusCode, error: error) else { return }
        record(ended)
    }

    func requestWillReconnect(
        _ id: UUID, after response: HTTPURLResponse?, error: NetworkError?, delay: TimeInterval
    ) {
        guard let (ended, _) = endCurrent(id, status: response?.statusCode, error: error) else { return }
        record(ended)
        state.withLock { $0.flights[id]?.reconnects = true }
    }

    func requestWillSendOutboxEntry(_ id: UUID, entryID: UUID, outboxAttempt: Int) {
        state.withLock { $0.outboxSends[id] = OutboxSend(entryID: entryID, attempt: outboxAttempt) }
    }

    func requestDidFinish(_ metrics: RequestMetrics) {
        let flight = state.withLock { state in
            state.outboxSends.removeValue(forKey: metrics.requestID)
            return state.flights.removeValue(forKey: metrics.requestID)
        }
        guard let flight else {
            // Ended before anything was sent: end the span its adapter started, if any.
            if let request = metrics.request, let waiting = pending.take(request) {
                let outcome = Outcome(status: nil, error: metrics.error)
                outcome.apply(to: waiting.span)
                waiting.span.end()
            }
            return
        }
        let outcome = Outcome(status: metrics.response?.statusCode, error: metrics.error)
        if let span = flight.span {
            if metrics.source != .network {
                span.attributes[FormworkAttribute.cacheSource] = metrics.source.rawValue
                if let age = metrics.age { span.attributes[FormworkAttribute.cacheAge] = Int(age) }
                span.attributes[FormworkAttribute.cacheStale] = metrics.isStale
            }
            if let version = metrics.httpVersion.flatMap(Self.protocolVersion) {
                span.attributes[OTelAttribute.network.protocol.version] = version
            }
            outcome.apply(to: span)
            span.end()
            let sent = !flight.coalesced && metrics.source != .cache
            if sent {
                record(
                    Ended(
                        flight: flight, outcome: outcome,
                        bodies: (sent: metrics.bytesSent, received: metrics.bytesReceived)))
            }
        }
        Meter(
            label: HTTPClientMetric.activeRequests, dimensions: flight.dimensions.pairs, factory: self.metrics
        )
        .decrement()
    }

    // MARK: Spans

    /// Starts (or takes from the adapter) the span of what `request` sends.
    private func begin(_ id: UUID, request: URLRequest, attempt: Int, leaderID: UUID?) {
        let waiting = pending.take(request)
        let (flight, leader, outbox) = state.withLock { state -> (Flight?, (any Span)?, OutboxSend?) in
            (state.flights[id], leaderID.flatMap { state.flights[$0]?.span }, state.outboxSends[id])
        }
        let isNew = flight == nil
        // A span still open would be a start without a retry or redirect between: end it.
        flight?.span?.end()
        let parent = flight?.parent ?? waiting?.parent ?? InstrumentationContext.current ?? .topLevel
        let dimensions = flight?.dimensions ?? Dimensions(request)
        let span =
            waiting?.span
            ?? tracer.startSpan(dimensions.method.spanName(template: nil), context: parent, ofKind: .client)
        let resends = max(flight?.ended ?? 0, attempt - 1)
        let reason: String? =
            resends == 0
            ? nil : flight == nil ? "reload" : flight?.reconnects == true ? "reconnect" : "retry"
        describe(span, request: request, attempt: attempt, resends: resends, reason: reason)
        if let outbox {
            span.attributes[FormworkAttribute.outboxEntry] = outbox.entryID.uuidString
            span.attributes[FormworkAttribute.outboxAttempt] = outbox.attempt
        }
        if leaderID != nil {
            span.attributes[FormworkAttribute.coalesced] = true
            if let leader { span.addLink(SpanLink(context: leader.context, attributes: [:])) }
        }
        let now = DispatchTime.now().uptimeNanoseconds
        state.withLock { state in
            var next =
                state.flights[id]
                ?? Flight(span: nil, parent: parent, sentAt: now, ended: resends, dimensions: dimensions)
            next.span = span
            next.sentAt = now
            next.coalesced = leaderID != nil
            next.reconnects = false
            state.flights[id] = next
        }
        if isNew {
            Meter(label: HTTPClientMetric.activeRequests, dimensions: dimensions.pairs, factory: metrics)
                .increment()
        }
    }

    /// Sets the attributes known before the response.
    private func describe(_ span: any Span, request: URLRequest, attempt: Int, resends: Int, reason: String?)
    {
        let method = HTTPMethodName(request.httpMethod)
        span.updateAttributes { attributes in
            attributes[OTelAttribute.http.request.method] = method.recorded
            if let original = method.original {
                attributes[OTelAttribute.http.request.methodOriginal] = original
            }
            let dimensions = Dimensions(request)
            if let address = dimensions.address { attributes[OTelAttribute.server.address] = address }
            if let port = dimensions.port { attributes[OTelAttribute.server.port] = port }
            if let url = request.url {
                attributes[OTelAttribute.url.full] = RedactedURL.full(url, redaction: redaction)
            }
            if resends > 0 {
                attributes[OTelAttribute.http.request.resendCount] = resends
            }
            if let reason { attributes[FormworkAttribute.resendReason] = reason }
            attributes[FormworkAttribute.attempt] = attempt
            if let field = request.value(forHTTPHeaderField: "Idempotency-Key") {
                attributes[FormworkAttribute.idempotencyKey] = Self.idempotencyKey(field)
            }
        }
    }

    /// A span that ended, for the metrics.
    struct Ended {
        let flight: Flight
        let outcome: Outcome
        var bodies: (sent: Int64, received: Int64)?
    }

    /// Ends the request's current span with a response's status or an error.
    /// - Returns: The ended span's request, for the metrics, and how many spans have ended now.
    private func endCurrent(_ id: UUID, status: Int?, error: NetworkError?) -> (Ended, ended: Int)? {
        let taken = state.withLock { state -> (any Span, Flight, Int)? in
            guard var flight = state.flights[id], let span = flight.span else { return nil }
            let before = flight
            flight.span = nil
            flight.ended += 1
            state.flights[id] = flight
            return (span, before, flight.ended)
        }
        guard let (span, flight, ended) = taken else { return nil }
        let outcome = Outcome(status: status, error: error)
        outcome.apply(to: span)
        span.end()
        return (Ended(flight: flight, outcome: outcome), ended)
    }

    /// The key an `Idempotency-Key` field carries: Formwork sends it as a structured-field string
    /// (RFC 8941), quoted, with `"` and `\` escaped; a field that is not quoted is taken as it is.
    static func idempotencyKey(_ field: String) -> String {
        guard field.count >= 2, field.hasPrefix("\""), field.hasSuffix("\"") else { return field }
        var key = ""
        var escaped = false
        for character in field.dropFirst().dropLast() {
            if !escaped, character == "\\" {
                escaped = true
                continue
            }
            escaped = false
            key.append(character)
        }
        return key
    }

    /// `network.protocol.version` from an HTTP version as a transport reports it: `"HTTP/1.1"`
    /// is `1.1`, `"HTTP/2.0"` is `2` (the conventions drop a minor version of `0` from 2 on).
    static func protocolVersion(_ httpVersion: String) -> String? {
        let prefix = "HTTP/"
        guard httpVersion.uppercased().hasPrefix(prefix) else { return nil }
        let version = String(httpVersion.dropFirst(prefix.count))
        let parts = version.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) })
        else { return nil }
        if parts.count == 2, parts[1] == "0", let major = Int(parts[0]), major >= 2 {
            return String(parts[0])
        }
        return version
    }

    // MARK: Metrics

    /// Records the duration (and, at the end, the body sizes) of a request sent. Requests answered
    /// by the cache or by another request's exchange sent nothing and are not recorded; nor is a
    /// request the caller cancelled.
    private func record(_ ended: Ended) {
        guard !ended.flight.coalesced, !ended.outcome.cancelled else { return }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds &- ended.flight.sentAt) / 1_000_000_000
        let dimensions = ended.flight.dimensions.pairs + ended.outcome.pairs
        Recorder(
            label: HTTPClientMetric.requestDuration, dimensions: dimensions, aggregate: true, factory: metrics
        )
        .record(seconds)
        guard let bodies = ended.bodies else { return }
        Recorder(
            label: HTTPClientMetric.requestBodySize, dimensions: dimensions, aggregate: true, factory: metrics
        )
        .record(bodies.sent)
        Recorder(
            label: HTTPClientMetric.responseBodySize, dimensions: dimensions, aggregate: true,
            factory: metrics
        )
        .record(bodies.received)
    }
}

/// How a request sent ended, in the conventions' terms.
struct Outcome: Sendable {
    /// `http.response.status_code`.
    let status: Int?
    /// `error.type`: the status code for `4xx` and `5xx`, else a name for the failure.
    let errorType: String?
    /// Whether the caller cancelled the request (not an error of the request).
    let cancelled: Bool

    init(status: Int?, error: NetworkError?) {
        self.status = status
        cancelled = error?.isCancelled == true
        if cancelled {
            errorType = nil
        } else if let status, status >= 400 {
            errorType = String(status)
        } else if let error {
            errorType = error.urlErrorCode.map(Self.name) ?? error.kind.name
        } else {
            errorType = nil
        }
    }

    /// The status, error type and span status on `span`.
    func apply(to span: any Span) {
        span.updateAttributes { attributes in
            if let status { attributes[OTelAttribute.http.response.statusCode] = status }
            if let errorType { attributes[OTelAttribute.error.type] = errorType }
            if cancelled { attributes[FormworkAttribute.cancelled] = true }
        }
        if let errorType { span.setStatus(SpanStatus(code: .error, message: errorType)) }
    }

    /// The dimensions the outcome adds to a metric.
    var pairs: [(String, String)] {
        var pairs: [(String, String)] = []
        if let status { pairs.append((OTelAttribute.http.response.statusCode, String(status))) }
        if let errorType { pairs.append((OTelAttribute.error.type, errorType)) }
        return pairs
    }

    /// A short, bounded name for a transport failure.
    static func name(_ code: URLError.Code) -> String {
        switch code {
        case .timedOut: "timeout"
        case .cannotConnectToHost: "cannot_connect_to_host"
        case .cannotFindHost: "cannot_find_host"
        case .dnsLookupFailed: "dns_lookup_failed"
        case .networkConnectionLost: "network_connection_lost"
        case .notConnectedToInternet: "not_connected_to_internet"
        case .secureConnectionFailed: "secure_connection_failed"
        case .serverCertificateUntrusted: "server_certificate_untrusted"
        case .badServerResponse: "bad_server_response"
        default: "url_error_\(code.rawValue)"
        }
    }
}
