import Foundation
import Testing

@testable import Formwork

private func response(_ status: Int, type: String?) -> HTTPURLResponse {
    HTTPURLResponse(
        url: URL(string: "http://127.0.0.1/sse")!, statusCode: status, httpVersion: "HTTP/1.1",
        headerFields: type.map { ["Content-Type": $0] } ?? [:])!
}

/// The buffer's next item or end that is not a change of the connection (the open connection was
/// told before the reader chose events).
private func nextSkippingConnectionChanges(_ buffer: StreamBuffer) async -> StreamBuffer.Next {
    while true {
        let next = await buffer.next(isRequestDone: { true })
        if case .item(let item) = next, item.isConnectionChange { continue }
        return next
    }
}

private let ended = NetworkError(
    .validationFailed, failureReason: "ended", underlyingError: EventStreamRule.EndOfConnection())

@Suite("Event stream rules: which connections are read, when to reconnect, how long to wait")
struct StreamRuleTests {
    @Test("Events chosen after a wrong head (and even after the end) fail with the rejection")
    func lateChoiceIsRejected() async {
        let sink = StreamSink(limit: 1 << 20, reconnection: .default)
        _ = sink.open(response(200, type: "text/plain"), attempt: 1)
        _ = try? sink.write(Data("not a stream\n\n".utf8))
        _ = sink.close(attempt: 1, error: nil)
        #expect(sink.choose(.events))
        guard case .end(let error) = await nextSkippingConnectionChanges(sink.buffer) else {
            Issue.record("an item was read from a rejected stream")
            return
        }
        #expect(error?.kind == .validationFailed)
    }

    @Test("Events chosen between the request's checks and its end: the end is the rejection")
    func choiceBeforeCloseIsRejected() async {
        let sink = StreamSink(limit: 1 << 20, reconnection: .default)
        _ = sink.open(response(200, type: "text/plain"), attempt: 1)
        _ = try? sink.write(Data("not a stream\n\n".utf8))
        try? sink.checkEnd(response(200, type: "text/plain"))  // no mode yet: nothing to check
        #expect(sink.choose(.events))
        #expect(sink.close(attempt: 1, error: nil)?.kind == .validationFailed)
        guard case .end(let error) = await nextSkippingConnectionChanges(sink.buffer) else {
            Issue.record("an item was read from a rejected stream")
            return
        }
        #expect(error?.kind == .validationFailed)
    }

    @Test("Only a 200 text/event-stream is read; a 204 stops; other 2xx and types fail")
    func rejection() {
        #expect(EventStreamRule.rejection(of: response(200, type: "text/event-stream")) == nil)
        #expect(
            EventStreamRule.rejection(of: response(200, type: "Text/Event-Stream; charset=latin1")) == nil)
        #expect(EventStreamRule.rejection(of: response(204, type: nil)) == nil)
        #expect(EventStreamRule.rejection(of: response(200, type: "text/plain"))?.kind == .validationFailed)
        #expect(
            EventStreamRule.rejection(of: response(200, type: nil))?.failureReason.contains("none") == true)
        #expect(
            EventStreamRule.rejection(of: response(201, type: "text/event-stream"))?.kind == .validationFailed
        )
        // Non-2xx statuses are left to the status validation (and retriers such as a token refresh).
        #expect(EventStreamRule.rejection(of: response(500, type: "text/event-stream")) == nil)
    }

    @Test("A clean end or a transport failure reconnects; statuses, overflows and other failures do not")
    func reconnects() {
        #expect(EventStreamRule.reconnects(after: ended))
        #expect(EventStreamRule.reconnects(after: NetworkError(.transport, failureReason: "lost")))
        #expect(
            !EventStreamRule.reconnects(after: NetworkError(.unacceptableStatusCode, failureReason: "500")))
        #expect(!EventStreamRule.reconnects(after: NetworkError(.validationFailed, failureReason: "type")))
        #expect(!EventStreamRule.reconnects(after: StreamBuffer.overflow(10, limit: 5)))
        #expect(!EventStreamRule.reconnects(after: NetworkError.cancelled(request: nil)))
    }

    @Test(
        "The wait is the server's retry (else the default), doubled per quiet connection, capped, plus jitter"
    )
    func delay() {
        let policy = StreamReconnection(defaultRetry: 3, maximumDelay: 30, jitter: 0.25)
        func wait(retry: Int?, quiet: Int, random: Double = 0) -> Double? {
            EventStreamRule.reconnectDelay(
                after: ended, facts: .init(retry: retry, quietConnections: quiet), policy: policy,
                random: random)
        }
        #expect(wait(retry: nil, quiet: 0) == 3)
        #expect(wait(retry: 20, quiet: 0) == 0.02)
        #expect(wait(retry: 20, quiet: 1) == 0.02)
        #expect(wait(retry: 1000, quiet: 2) == 2)
        #expect(wait(retry: 1000, quiet: 3) == 4)
        #expect(wait(retry: 1000, quiet: 40) == 30)
        #expect(wait(retry: 100_000, quiet: 0) == 30)
        #expect(wait(retry: 1000, quiet: 0, random: 1) == 1.25)
        #expect(wait(retry: 0, quiet: 0) == 0)
        #expect(wait(retry: 0, quiet: 2) == EventStreamRule.quietFloor * 2)
        #expect(
            EventStreamRule.reconnectDelay(
                after: NetworkError(.unacceptableStatusCode, failureReason: "500"),
                facts: .init(retry: nil, quietConnections: 0), policy: policy, random: 0) == nil)
    }

    @Test("A limit on quiet connections ends the stream after that many connections without an event")
    func quietLimit() {
        let policy = StreamReconnection(maximumQuietConnections: 2)
        func wait(quiet: Int) -> Double? {
            EventStreamRule.reconnectDelay(
                after: ended, facts: .init(retry: 0, quietConnections: quiet), policy: policy, random: 0)
        }
        #expect(wait(quiet: 2) != nil)
        #expect(wait(quiet: 3) == nil)
    }

    @Test("With .fail, the buffer hands out items in order, then the end; past its limit it refuses clearly")
    func buffer() async throws {
        let buffer = StreamBuffer(limit: 10, policy: .fail)
        try buffer.append(.chunk(Data(count: 4)))
        try buffer.append(.chunk(Data(count: 6)))
        #expect(throws: NetworkError.self) { try buffer.append(.chunk(Data(count: 1))) }
        do {
            try buffer.append(.chunk(Data(count: 1)))
        } catch {
            #expect(error.kind == .streamBufferOverflow)
            #expect(error.failureReason.contains("limit of 10 bytes"))
        }
        buffer.finish(nil)
        guard case .item(.chunk(let first)) = await buffer.next(isRequestDone: { true }) else {
            Issue.record("expected the first chunk")
            return
        }
        #expect(first.count == 4)
        guard case .item(.chunk(let second)) = await buffer.next(isRequestDone: { true }) else {
            Issue.record("expected the second chunk")
            return
        }
        #expect(second.count == 6)
        guard case .end(nil) = await buffer.next(isRequestDone: { true }) else {
            Issue.record("expected a clean end")
            return
        }
        #expect(buffer.byteCount == 0)
    }

    @Test("With .slowDown, a full buffer holds its producer until the reader is down to half the limit")
    func bufferSlowsProducerDown() async throws {
        let buffer = StreamBuffer(limit: 10)
        #expect(buffer.policy == .slowDown)
        try buffer.append(.chunk(Data(count: 4)))
        try buffer.append(.chunk(Data(count: 6)))
        let appended = Protected(false)
        DispatchQueue.global().async {
            try? buffer.append(.chunk(Data(count: 4)))  // 14 > 10: waits
            appended.withLock { $0 = true }
        }
        // Read only once the producer waits: had it started after the first read, 6 + 4 would fit.
        await eventually("the producer waits for room") { buffer.isProducerWaiting }
        guard case .item(.chunk(let first)) = await buffer.next(isRequestDone: { false }) else {
            Issue.record("expected the first chunk")
            return
        }
        #expect(first.count == 4)
        // 6 bytes are still held, more than half the limit: the producer goes on waiting.
        #expect(!appended.current)
        guard case .item(.chunk(let second)) = await buffer.next(isRequestDone: { false }) else {
            Issue.record("expected the second chunk")
            return
        }
        #expect(second.count == 6)
        await eventually("the producer appended once the reader caught up") { appended.current }
        guard case .item(.chunk(let third)) = await buffer.next(isRequestDone: { false }) else {
            Issue.record("expected the third chunk")
            return
        }
        #expect(third.count == 4)
        #expect(buffer.droppedCount == 0)
    }

    @Test("With .slowDown, a producer waiting for room goes on when the reader leaves or the stream ends")
    func waitingProducerGoesOnAtTheEnd() async throws {
        for ending in ["abandon", "finish"] {
            let buffer = StreamBuffer(limit: 10)
            try buffer.append(.chunk(Data(count: 10)))
            let appended = Protected(false)
            DispatchQueue.global().async {
                try? buffer.append(.chunk(Data(count: 1)))
                appended.withLock { $0 = true }
            }
            if ending == "abandon" { buffer.abandon() } else { buffer.finish(nil) }
            await eventually("the producer went on after \(ending)") { appended.current }
        }
    }

    @Test("With .dropOldest, a full buffer drops its oldest items for new ones")
    func bufferDropsOldest() async throws {
        let buffer = StreamBuffer(limit: 10, policy: .dropOldest)
        for size in [4, 4, 4] { try buffer.append(.chunk(Data(count: size))) }
        #expect(buffer.droppedCount == 1)
        #expect(buffer.byteCount == 8)
        #expect(buffer.itemCount == 2)
    }

    @Test(
        "An item larger than the limit fails the stream under every policy",
        arguments: [
            StreamBufferPolicy.slowDown, .dropOldest, .fail,
        ])
    func itemLargerThanTheLimit(policy: StreamBufferPolicy) throws {
        let buffer = StreamBuffer(limit: 10, policy: policy)
        #expect(throws: NetworkError.self) { try buffer.append(.chunk(Data(count: 11))) }
        #expect(buffer.byteCount == 0)
    }

    @Test("A waiting reader wakes for an item appended later")
    func bufferWakesReader() async throws {
        let buffer = StreamBuffer(limit: 100)
        async let next = buffer.next(isRequestDone: { false })
        try buffer.append(.event(ServerSentEvent(data: "late")))
        guard case .item(.event(let event)) = await next else {
            Issue.record("expected the event")
            return
        }
        #expect(event.data == "late")
    }
}
