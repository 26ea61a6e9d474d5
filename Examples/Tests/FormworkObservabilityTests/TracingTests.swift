import Formwork
import FormworkObservability
import FormworkTestSupport
import Foundation
import InMemoryTracing
import OTelSemanticConventions
import Testing
import Tracing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

struct Client: Requestable {}

struct Form: RequestFormable {
    var url: String
    var method: HTTPMethod = .get
    var headers: HTTPHeaders = [:]
}

/// Sends a GET to the demo server through a session of its own (not observed).
func fetch(_ path: String) async throws {
    _ = try await Client().request(Form(url: try await DemoServer.url(path)), session: plain).data()
}

private let plain = Session {
    $0.transport = URLSessionTransport()  // whatever transport the behaviour suite installs (see `Observed`)
    $0.coalescesRequests = false
}

struct Echo: Decodable, Sendable {
    let path: String
    let headers: [String: String]
}

/// Spans and metrics of real requests to the demo server, read back from in-memory
/// implementations and compared key by key with OpenTelemetry's HTTP client conventions.
@Suite("OpenTelemetry: traces and metrics of requests")
struct TracingTests {
    let client = Client()

    @Test("A success: one client span named by its template, every attribute, its traceparent sent, metrics")
    func success() async throws {
        let observed = Observed(redaction: Redaction(queryItems: ["token"]))
        let url = try await DemoServer.url("/echo/users/42?city=Paris&token=secret&sig=abc")
        let form = Form(url: url, headers: [OpenTelemetryObservation.urlTemplateField: "/echo/users/{id}"])
        let echo = try await client.request(form, session: observed.session).decode(Echo.self)

        let span = try #require(observed.spans.first)
        #expect(observed.spans.count == 1)
        #expect(span.operationName == "GET /echo/users/{id}")
        #expect(span.kind == .client)
        #expect(span.status == nil)
        let redacted = try await DemoServer.url("/echo/users/42?city=Paris&token=REDACTED&sig=REDACTED")
        #expect(
            span.all
                == (try requestAttributes(
                    url: redacted, extra: [OTelAttribute.http.response.statusCode: .int64(200)])))
        // The server continues the trace: it received this span's context, and not the template field.
        #expect(echo.headers["traceparent"] == span.traceparent)
        #expect(echo.headers[OpenTelemetryObservation.urlTemplateField.lowercased()] == nil)

        let dimensions = try requestDimensions(url: url, status: 200)
        #expect(observed.values(HTTPClientMetric.requestDuration, dimensions).count == 1)
        #expect(observed.values(HTTPClientMetric.requestDuration, dimensions).allSatisfy { $0 > 0 })
        #expect(observed.values(HTTPClientMetric.requestBodySize, dimensions) == [0])
        let received = try #require(observed.values(HTTPClientMetric.responseBodySize, dimensions).first)
        #expect(received > 0)
        #expect(observed.dimensions(HTTPClientMetric.requestDuration) == [dimensions])
        #expect(observed.activeRequests == 0)
        let meter = try #require(observed.metrics.meters(label: HTTPClientMetric.activeRequests).first)
        #expect(Observed.dictionary(meter.dimensions) == (try requestDimensions(url: url)))
        #expect(meter.values == [1, 0])
    }

    @Test("A span started inside the caller's span is its child")
    func parent() async throws {
        let observed = Observed()
        let url = try await DemoServer.url("/echo")
        try await observed.tracer.withSpan("caller") { _ in
            _ = try await client.request(Form(url: url), session: observed.session).data()
        }
        let caller = try #require(observed.spans.first { $0.operationName == "caller" })
        let request = try #require(observed.spans.first { $0.operationName == "GET" })
        #expect(request.parentSpanID == caller.spanID)
        #expect(request.traceID == caller.traceID)
    }

    @Test("A 404 sets the error status and error.type to the status code")
    func notFound() async throws {
        let observed = Observed()
        let url = try await DemoServer.url("/no-such-route")
        let response = await client.request(Form(url: url), session: observed.session).response()
        #expect(response.error?.statusCode == 404)

        let span = try #require(observed.spans.first)
        #expect(observed.spans.count == 1)
        #expect(span.status == SpanStatus(code: .error, message: "404"))
        #expect(
            span.all
                == (try requestAttributes(
                    url: url,
                    extra: [
                        OTelAttribute.http.response.statusCode: .int64(404),
                        OTelAttribute.error.type: .string("404"),
                    ])))
        let dimensions = try requestDimensions(url: url, status: 404, errorType: "404")
        #expect(observed.values(HTTPClientMetric.requestDuration, dimensions).count == 1)
    }

    @Test("A transport error: no status code, error.type names the failure, error status")
    func transportError() async throws {
        let observed = Observed()
        let url = "http://127.0.0.1:\(try UnusedPort.find())/echo"
        let response = await client.request(Form(url: url), session: observed.session).response()
        #expect(response.error?.urlErrorCode == .cannotConnectToHost)

        let span = try #require(observed.spans.first)
        #expect(span.status == SpanStatus(code: .error, message: "cannot_connect_to_host"))
        #expect(
            span.all
                == (try requestAttributes(
                    url: url, extra: [OTelAttribute.error.type: .string("cannot_connect_to_host")])))
        let dimensions = try requestDimensions(url: url, errorType: "cannot_connect_to_host")
        #expect(observed.values(HTTPClientMetric.requestDuration, dimensions).count == 1)
        #expect(observed.activeRequests == 0)
    }

    @Test("A retried request: one span per attempt, the second with http.request.resend_count 1")
    func retried() async throws {
        let observed = Observed()
        let url = try await DemoServer.url("/fault/burst?key=\(UUID().uuidString)&failures=1&status=503")
        _ = try await client.request(Form(url: url), session: observed.session)
            .retry(RetryPolicy(retryLimit: 1, baseDelay: 0.01)).data()

        let spans = observed.spans
        try #require(spans.count == 2)
        #expect(spans.map(\.operationName) == ["GET", "GET"])
        #expect(spans[0].status == SpanStatus(code: .error, message: "503"))
        #expect(
            spans[0].all
                == (try requestAttributes(
                    url: url,
                    extra: [
                        OTelAttribute.http.response.statusCode: .int64(503),
                        OTelAttribute.error.type: .string("503"),
                    ])))
        #expect(spans[1].status == nil)
        #expect(
            spans[1].all
                == (try requestAttributes(
                    url: url, attempt: 2,
                    extra: [
                        OTelAttribute.http.response.statusCode: .int64(200),
                        OTelAttribute.http.request.resendCount: .int64(1),
                        FormworkAttribute.resendReason: .string("retry"),
                    ])))
        #expect(spans[0].spanID != spans[1].spanID)
        #expect(
            observed.values(
                HTTPClientMetric.requestDuration,
                try requestDimensions(url: url, status: 503, errorType: "503")
            )
            .count == 1)
        #expect(
            observed.values(HTTPClientMetric.requestDuration, try requestDimensions(url: url, status: 200))
                .count == 1)
        #expect(observed.activeRequests == 0)
    }

    @Test("A redirect: one span per hop, the second with http.request.resend_count 1 and the new URL")
    func redirect() async throws {
        let observed = Observed()
        let target = try await DemoServer.url("/echo")
        let url = try await DemoServer.url("/redirect?to=\(target)&status=302")
        _ = try await client.request(Form(url: url), session: observed.session).data()

        let spans = observed.spans
        try #require(spans.count == 2)
        #expect(spans[0].status == nil)
        #expect(
            spans[0].all
                == (try requestAttributes(
                    url: url, extra: [OTelAttribute.http.response.statusCode: .int64(302)])))
        #expect(
            spans[1].all
                == (try requestAttributes(
                    url: target,
                    extra: [
                        OTelAttribute.http.response.statusCode: .int64(200),
                        OTelAttribute.http.request.resendCount: .int64(1),
                        FormworkAttribute.resendReason: .string("redirect"),
                    ])))
        #expect(
            observed.values(HTTPClientMetric.requestDuration, try requestDimensions(url: url, status: 302))
                .count == 1)
        #expect(
            observed.values(HTTPClientMetric.requestDuration, try requestDimensions(url: url, status: 200))
                .count == 1)
    }

    @Test("A cache hit: its span says formwork.cache.source; it records no request duration")
    func cacheHit() async throws {
        let observed = Observed { $0.cache = HTTPCache() }
        let url = try await DemoServer.url("/cache/resource?id=\(UUID().uuidString)&cc=max-age=600")
        _ = try await client.request(Form(url: url), session: observed.session).data()
        _ = try await client.request(Form(url: url), session: observed.session).data()

        let spans = observed.spans
        try #require(spans.count == 2)
        let ok: [String: SpanAttribute] = [OTelAttribute.http.response.statusCode: .int64(200)]
        #expect(spans[0].all == (try requestAttributes(url: url, extra: ok)))
        var cached = ok
        cached[FormworkAttribute.cacheSource] = .string("cache")
        cached[FormworkAttribute.cacheAge] = spans[1].all[FormworkAttribute.cacheAge]
        cached[FormworkAttribute.cacheStale] = .bool(false)
        #expect(spans[1].all == (try requestAttributes(url: url, extra: cached)))
        #expect(spans[1].all[FormworkAttribute.cacheAge] != nil)
        #expect(
            observed.values(HTTPClientMetric.requestDuration, try requestDimensions(url: url, status: 200))
                .count == 1)
    }
}
