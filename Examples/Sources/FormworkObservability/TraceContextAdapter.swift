import Formwork
import Foundation
import Tracing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A value behind a lock.
final class Locked<Value>: @unchecked Sendable {  // `value` is only touched while `lock` is held
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

/// The client spans the adapter started, waiting for the monitor to hear that their request is
/// sent. The trace context fields the tracer wrote into the request are the key: the monitor finds
/// the span of a request by reading them back from what is sent.
final class PendingSpans: Sendable {
    /// A span started by the adapter.
    struct Pending: Sendable {
        let span: any Span
        let parent: InstrumentationContext
        /// The low-cardinality template the form gave, if any.
        let template: String?
    }

    private struct State {
        var spans: [String: Pending] = [:]
        /// The field names the tracer writes (lowercased), learnt from its injections.
        var fields: Set<String> = []
    }

    /// How many spans may wait at most: a request whose adapters ran but that failed before it was
    /// sent (an invalid header) never reports a start; its span is ended when the request ends,
    /// and beyond this many the oldest are ended without waiting.
    static let limit = 4096

    private let state = Locked(State())

    /// Keeps `pending` under the fields written into the request.
    func keep(_ pending: Pending, written: [(name: String, value: String)]) {
        guard let key = Self.key(written) else { return }
        let dropped = state.withLock { state -> [Pending] in
            for field in written { state.fields.insert(field.name.lowercased()) }
            var dropped: [Pending] = []
            if state.spans.count >= Self.limit {
                dropped = Array(state.spans.values)
                state.spans = [:]
            }
            state.spans[key] = pending
            return dropped
        }
        for old in dropped { old.span.end() }
    }

    /// The span waiting for `request`, taken out.
    func take(_ request: URLRequest) -> Pending? {
        state.withLock { state in
            guard !state.fields.isEmpty else { return nil }
            let written = state.fields.compactMap { name in
                request.value(forHTTPHeaderField: name).map { (name: name, value: $0) }
            }
            guard let key = Self.key(written) else { return nil }
            return state.spans.removeValue(forKey: key)
        }
    }

    private static func key(_ written: [(name: String, value: String)]) -> String? {
        guard !written.isEmpty else { return nil }
        return written.map { "\($0.name.lowercased())=\($0.value)" }.sorted().joined(separator: "\n")
    }
}

/// Writes trace context fields into a request's headers, and remembers what it wrote.
struct HeaderInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout HeaderCarrier) {
        carrier.request.headers[key] = value
        carrier.written.append((name: key, value: value))
    }
}

/// The request being adapted and the fields written into it.
struct HeaderCarrier: Sendable {
    var request: OutgoingRequest
    var written: [(name: String, value: String)] = []
}

/// Starts each attempt's client span and sends its trace context with the request (W3C
/// `traceparent` and `tracestate` with an OpenTelemetry tracer), so the server continues the trace.
struct TraceContextAdapter: RequestAdapter {
    let tracer: any Tracer
    let pending: PendingSpans

    func adapt(_ request: OutgoingRequest) async throws -> OutgoingRequest {
        var request = request
        let template = request.headers[OpenTelemetryObservation.urlTemplateField]
        if template != nil {
            request.headers[OpenTelemetryObservation.urlTemplateField] = nil
        }
        let parent = InstrumentationContext.current ?? .topLevel
        let method = HTTPMethodName(request.httpMethod)
        let span = tracer.startSpan(method.spanName(template: template), context: parent, ofKind: .client)
        var carrier = HeaderCarrier(request: request)
        tracer.inject(span.context, into: &carrier, using: HeaderInjector())
        guard !carrier.written.isEmpty else {
            // A tracer that propagates nothing (the no-op one when none is bootstrapped): the span
            // is left unended, so not recorded, and the monitor starts the request's span itself.
            return request
        }
        pending.keep(.init(span: span, parent: parent, template: template), written: carrier.written)
        return carrier.request
    }
}
