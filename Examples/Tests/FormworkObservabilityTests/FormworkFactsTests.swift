import Formwork
import FormworkAsyncHTTPClient
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

/// Spans and metrics of what Formwork does besides sending a request once: a cancel, a shared
/// (coalesced) request, an outbox's sends, an event stream's connections, and the protocol version
/// a transport reports. Requests made here start with `resume()`: a test is not on an actor, so
/// nothing else starts them until an async accessor is awaited.
@Suite("OpenTelemetry: cancels, shared requests, the outbox, streams")
struct FormworkFactsTests {
    let client = Client()

    @Test("A caller's cancellation is not an error: no error status, no error.type, no duration recorded")
    func cancel() async throws {
        let observed = Observed()
        let key = UUID().uuidString
        let url = try await DemoServer.url("/coalesce/held?key=\(key)")
        let request = client.request(Form(url: url), session: observed.session).resume()
        try await fetch("/coalesce/hits?key=\(key)&atLeast=1")  // the server holds it
        request.cancel()
        let response = await request.response()
        try await fetch("/coalesce/release?key=\(key)")
        #expect(response.error?.isCancelled == true)

        let span = try #require(observed.spans.first)
        #expect(observed.spans.count == 1)
        #expect(span.status == nil)
        #expect(
            span.all == (try requestAttributes(url: url, extra: [FormworkAttribute.cancelled: .bool(true)])))
        #expect(observed.metrics.recorders(label: HTTPClientMetric.requestDuration).isEmpty)
        #expect(observed.activeRequests == 0)
    }

    @Test("A coalesced join: its span says formwork.coalesced and links to the span of the request it joined")
    func coalesced() async throws {
        let observed = Observed()
        let key = UUID().uuidString
        let url = try await DemoServer.url("/coalesce/held?key=\(key)")
        let first = client.request(Form(url: url), session: observed.session).resume()
        try await fetch("/coalesce/hits?key=\(key)&atLeast=1")
        let second = client.request(Form(url: url), session: observed.session).resume()
        await eventually("the second request joins the first") {
            observed.tracer.base.activeSpans.contains {
                $0.attributes.get(FormworkAttribute.coalesced) == .bool(true)
            }
        }
        try await fetch("/coalesce/release?key=\(key)")
        _ = try await first.data()
        _ = try await second.data()

        try #require(observed.spans.count == 2)
        let leader = try #require(observed.spans.first { $0.all[FormworkAttribute.coalesced] == nil })
        let joiner = try #require(observed.spans.first { $0.all[FormworkAttribute.coalesced] != nil })
        let ok: [String: SpanAttribute] = [OTelAttribute.http.response.statusCode: .int64(200)]
        #expect(leader.all == (try requestAttributes(url: url, extra: ok)))
        var joined = ok
        joined[FormworkAttribute.coalesced] = .bool(true)
        #expect(joiner.all == (try requestAttributes(url: url, extra: joined)))
        #expect(joiner.links.map { $0.context.inMemorySpanContext?.spanID } == [leader.spanID])
        #expect(joiner.status == nil)
        // One request sent: one duration, one hit on the server.
        #expect(
            observed.values(HTTPClientMetric.requestDuration, try requestDimensions(url: url, status: 200))
                .count == 1)
        #expect(observed.dimensions(HTTPClientMetric.requestDuration).count == 1)
        #expect(observed.activeRequests == 0)
    }

    @Test(
        "An outbox send: each attempt's span carries the entry, the outbox's attempt and the Idempotency-Key")
    func outbox() async throws {
        let observed = Observed()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        let outbox = try Outbox(
            directory: directory, session: observed.session,
            options: Outbox.Options(backoff: RetryPolicy(retryLimit: 5, baseDelay: 0.01)))
        // The first attempt gets a 503, the outbox waits and sends again (a new request).
        let url = try await DemoServer.url("/fault/burst?key=\(UUID().uuidString)&failures=1&status=503")
        var deliveries = outbox.deliveries().makeAsyncIterator()
        let entry = try await outbox.enqueue(Form(url: url, method: .put))
        let delivery = try #require(await deliveries.next())
        await outbox.close()
        #expect(delivery.attempts == 2)
        #expect(delivery.response?.statusCode == 200)

        let spans = observed.spans
        try #require(spans.count == 2)
        #expect(spans.map(\.operationName) == ["PUT", "PUT"])
        let ofEntry: [String: SpanAttribute] = [
            FormworkAttribute.idempotencyKey: .string(entry.idempotencyKey),
            FormworkAttribute.outboxEntry: .string(entry.id.uuidString),
        ]
        var failed = ofEntry
        failed[OTelAttribute.http.response.statusCode] = .int64(503)
        failed[OTelAttribute.error.type] = .string("503")
        failed[FormworkAttribute.outboxAttempt] = .int64(1)
        #expect(spans[0].all == (try requestAttributes(method: "PUT", url: url, extra: failed)))
        #expect(spans[0].status == SpanStatus(code: .error, message: "503"))
        var sent = ofEntry
        sent[OTelAttribute.http.response.statusCode] = .int64(200)
        sent[FormworkAttribute.outboxAttempt] = .int64(2)
        // Each outbox attempt is a request of its own: Formwork's attempt is 1, no resend count.
        #expect(spans[1].all == (try requestAttributes(method: "PUT", url: url, extra: sent)))
        #expect(spans[1].status == nil)
        #expect(observed.activeRequests == 0)
    }

    @Test("An event stream: one span per connection, the new connection a resend with reason reconnect")
    func stream() async throws {
        let observed = Observed()
        // Two events, a clean end, a reconnection after 10 ms, then 204: the stream is over.
        let url = try await DemoServer.url("/sse?key=\(UUID().uuidString)&count=2&total=2&end=clean&retry=10")
        var events = 0
        for try await _ in observed.session.stream(Form(url: url)).events() { events += 1 }
        #expect(events == 2)
        // The reader sees the stream end before the monitors hear the request's end.
        await eventually("the request's end") { observed.spans.count == 2 && observed.activeRequests == 0 }

        let spans = observed.spans
        try #require(spans.count == 2)
        #expect(spans.allSatisfy { $0.operationName == "GET" && $0.kind == .client && $0.status == nil })
        #expect(
            spans[0].all
                == (try requestAttributes(
                    url: url, extra: [OTelAttribute.http.response.statusCode: .int64(200)])))
        #expect(
            spans[1].all
                == (try requestAttributes(
                    url: url, attempt: 2,
                    extra: [
                        OTelAttribute.http.response.statusCode: .int64(204),
                        OTelAttribute.http.request.resendCount: .int64(1),
                        FormworkAttribute.resendReason: .string("reconnect"),
                    ])))
        #expect(
            observed.values(HTTPClientMetric.requestDuration, try requestDimensions(url: url, status: 200))
                .count == 1)
        #expect(
            observed.values(HTTPClientMetric.requestDuration, try requestDimensions(url: url, status: 204))
                .count == 1)
        #expect(observed.activeRequests == 0)
    }

    @Test("network.protocol.version: recorded when the transport reads it off the wire (AsyncHTTPClient)")
    func protocolVersion() async throws {
        let observed = Observed { $0.transport = AsyncHTTPClientTransport() }
        let url = try await DemoServer.url("/echo")
        _ = try await client.request(Form(url: url), session: observed.session).data()

        let span = try #require(observed.spans.first)
        #expect(observed.spans.count == 1)
        #expect(
            span.all
                == (try requestAttributes(
                    url: url,
                    extra: [
                        OTelAttribute.http.response.statusCode: .int64(200),
                        OTelAttribute.network.protocol.version: .string("1.1"),
                    ])))
    }
}
