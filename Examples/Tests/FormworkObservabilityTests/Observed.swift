import Formwork
import FormworkObservability
import FormworkTestSupport
import Foundation
import InMemoryTracing
import Logging
import Metrics
import MetricsTestKit
import OTelSemanticConventions
import Testing
import Tracing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// swift-distributed-tracing's in-memory tracer, propagating its spans as W3C `traceparent`
/// fields (`00-<trace id>-<span id>-01`, with ids of 32 and 16 hex digits) the way an
/// OpenTelemetry tracer does.
struct W3CInMemoryTracer: Tracer {
    let base = InMemoryTracer(
        idGenerator: .init(
            nextTraceID: { W3CInMemoryTracer.hex(32) }, nextSpanID: { W3CInMemoryTracer.hex(16) }))

    static func hex(_ digits: Int) -> String {
        String((UUID().uuidString + UUID().uuidString).lowercased().filter { $0 != "-" }.prefix(digits))
    }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> InstrumentationContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> InMemorySpan {
        base.startSpan(
            operationName, context: context(), ofKind: kind, at: instant(), function: function, file: fileID,
            line: line)
    }

    func activeSpan(identifiedBy context: InstrumentationContext) -> InMemorySpan? {
        base.activeSpan(identifiedBy: context)
    }

    func forceFlush() {}

    func inject<Carrier, Inject: Injector>(
        _ context: InstrumentationContext, into carrier: inout Carrier, using injector: Inject
    ) where Inject.Carrier == Carrier {
        guard let span = context.inMemorySpanContext else { return }
        injector.inject("00-\(span.traceID)-\(span.spanID)-01", forKey: "traceparent", into: &carrier)
    }

    func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier, into context: inout InstrumentationContext, using extractor: Extract
    ) where Extract.Carrier == Carrier {}
}

/// A session observed by in-memory implementations of the tracing and metrics APIs.
struct Observed {
    let tracer = W3CInMemoryTracer()
    let metrics = TestMetrics()
    let session: Session

    init(redaction: Redaction = .standard, _ configure: (inout Session.Configuration) -> Void = { _ in }) {
        let observation = OpenTelemetryObservation(tracer: tracer, metrics: metrics, redaction: redaction)
        session = Session {
            // Its own URLSession transport: the behaviour suite, in the same process, may install
            // its transport for sessions that name none, and the attributes depend on the transport.
            $0.transport = URLSessionTransport()
            configure(&$0)
            $0.observeWithOpenTelemetry(observation)
        }
    }

    /// The finished spans, in the order they ended.
    var spans: [FinishedInMemorySpan] { tracer.base.finishedSpans }

    /// The values recorded for `label` with exactly these dimensions (in any order).
    func values(_ label: String, _ dimensions: [String: String]) -> [Double] {
        metrics.recorders(label: label).filter { Self.dictionary($0.dimensions) == dimensions }
            .flatMap(\.values)
    }

    /// The dimensions of every recorder of `label`.
    func dimensions(_ label: String) -> [[String: String]] {
        metrics.recorders(label: label).map { Self.dictionary($0.dimensions) }
    }

    /// The active requests now, summed over all dimensions.
    var activeRequests: Double {
        metrics.meters(label: HTTPClientMetric.activeRequests).compactMap(\.lastValue).reduce(0, +)
    }

    static func dictionary(_ pairs: [(String, String)]) -> [String: String] {
        Dictionary(pairs, uniquingKeysWith: { _, last in last })
    }
}

extension FinishedInMemorySpan {
    /// Every attribute, by name.
    var all: [String: SpanAttribute] {
        var all: [String: SpanAttribute] = [:]
        // swift-format-ignore: ReplaceForEachWithForLoop
        attributes.forEach { name, value in all[name] = value }  // SpanAttributes is not a Sequence
        return all
    }

    /// The `traceparent` this span sends.
    var traceparent: String { "00-\(traceID)-\(spanID)-01" }
}

/// The attributes every span of a request to the demo server has, before its outcome.
func requestAttributes(
    method: String = "GET", url: String, attempt: Int = 1, extra: [String: SpanAttribute] = [:]
) throws -> [String: SpanAttribute] {
    let parsed = try #require(URL(string: url))
    var attributes: [String: SpanAttribute] = [
        OTelAttribute.http.request.method: .string(method),
        OTelAttribute.server.address: .string("127.0.0.1"),
        OTelAttribute.server.port: .int64(Int64(try #require(parsed.port))),
        OTelAttribute.url.full: .string(url),
        FormworkAttribute.attempt: .int64(Int64(attempt)),
    ]
    attributes.merge(extra) { _, new in new }
    return attributes
}

/// The dimensions of a request's metrics to the demo server.
func requestDimensions(
    method: String = "GET", url: String, status: Int? = nil, errorType: String? = nil
) throws -> [String: String] {
    let parsed = try #require(URL(string: url))
    var dimensions = [
        OTelAttribute.http.request.method: method,
        OTelAttribute.server.address: "127.0.0.1",
        OTelAttribute.server.port: String(try #require(parsed.port)),
        OTelAttribute.url.scheme: "http",
    ]
    if let status { dimensions[OTelAttribute.http.response.statusCode] = String(status) }
    if let errorType { dimensions[OTelAttribute.error.type] = errorType }
    return dimensions
}

/// A log handler that keeps every message, for the swift-log bridge's tests.
struct MemoryLogHandler: LogHandler {
    final class Store: Sendable {
        private let lines = TestLocked([String]())
        var messages: [String] { lines.withLock { $0 } }
        func append(_ line: String) { lines.withLock { $0.append(line) } }
    }

    let store: Store
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        store.append("\(event.level) \(event.message)")
    }
}

/// A value behind a lock, for the tests.
final class TestLocked<Value>: @unchecked Sendable {  // `value` is only touched while `lock` is held
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
