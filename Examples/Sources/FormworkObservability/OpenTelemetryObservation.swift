import Formwork
import Foundation
import Metrics
import Tracing

/// Traces and measures a session's requests in OpenTelemetry's terms, through
/// swift-distributed-tracing and swift-metrics (whatever backends the process bootstrapped, for
/// example swift-otel's exporter).
///
/// ```swift
/// let api = Session { $0.observeWithOpenTelemetry() }
/// ```
///
/// - **Traces.** One client span per request sent (each attempt, each redirect hop, each
///   connection of an event stream), named `{method}` or `{method} {template}`, with the HTTP
///   client conventions' attributes and Formwork's own (``FormworkAttribute``). The span's trace
///   context goes out with the request (`traceparent`, `tracestate`), so the server continues the
///   trace.
/// - **Logs.** `ConsoleLogger(logger:)` sends Formwork's console lines to swift-log, and
///   `ConsoleLogger(osLogger:)` to `os.Logger` on Apple platforms, with the same redaction.
/// - **Metrics.** The conventions' HTTP client metrics (``HTTPClientMetric``).
public struct OpenTelemetryObservation: Sendable {
    /// The request header through which a form names its low-cardinality URL template, e.g.
    /// `/users/{id}`: the span is then named `GET /users/{id}`. The adapter removes the field, so
    /// it is not sent (a session that does not observe sends it).
    public static let urlTemplateField = "Formwork-URL-Template"

    /// Ends the spans and records the metrics.
    public let monitor: any EventMonitor
    /// Starts each request's span and writes its trace context into the request. Runs after the
    /// session's other adapters when installed by ``Formwork/Session/Configuration/observeWithOpenTelemetry(_:)``.
    public let adapter: any RequestAdapter

    /// Creates the monitor and adapter of one session.
    /// - Parameters:
    ///   - tracer: Where spans go (default: the tracer bootstrapped in `InstrumentationSystem`).
    ///   - metrics: Where metrics go (default: the factory bootstrapped in `MetricsSystem`).
    ///   - redaction: Query parameters hidden in `url.full`, besides those the conventions name
    ///     (default: none more).
    public init(
        tracer: any Tracer = InstrumentationSystem.tracer,
        metrics: any MetricsFactory = MetricsSystem.factory,
        redaction: Redaction = .standard
    ) {
        let pending = PendingSpans()
        monitor = OpenTelemetryMonitor(
            tracer: tracer, metrics: metrics, redaction: redaction, pending: pending)
        adapter = TraceContextAdapter(tracer: tracer, pending: pending)
    }
}

extension Session.Configuration {
    /// Traces and measures every request of the session in OpenTelemetry's terms: adds the
    /// observation's adapter after the session's adapters, and its monitor to the event monitors.
    /// - Parameter observation: The tracer, metrics factory and redaction to use (default: the
    ///   process's bootstrapped tracer and metrics factory).
    public mutating func observeWithOpenTelemetry(
        _ observation: OpenTelemetryObservation = OpenTelemetryObservation()
    ) {
        interceptors.adapters.append(observation.adapter)
        interceptors.eventMonitors.append(observation.monitor)
    }
}
