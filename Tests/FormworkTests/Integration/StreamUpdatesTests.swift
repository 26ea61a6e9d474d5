import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

/// An update as a short name: `e:<id>` for an event, the state's name for a connection change.
private func name(_ update: EventStreamUpdate) -> String {
    switch update {
    case .event(let event): "e:" + event.id
    case .connection(let state): state.name
    }
}

/// The waits `updates` announced before reconnecting.
private func waits(_ updates: [EventStreamUpdate]) -> [TimeInterval] {
    updates.compactMap { if case .connection(.reconnecting(let wait)) = $0 { wait } else { nil } }
}

@Suite(
    "Stream updates: events and connection changes in one sequence, against the demo server",
    .timeLimit(.minutes(3)))
struct StreamUpdatesTests {
    let client = Client()

    @Test(
        "Over reconnects, each connection's changes come in order with its events, and closed comes last",
        arguments: ["clean", "drop"])
    func updatesOverReconnects(end: String) async throws {
        let key = streamKey()
        let url = try await DemoServer.url("/sse?key=\(key)&count=2&total=4&retry=10&end=\(end)")
        let request = client.stream(TestForm(url: url))
        #expect(request.reconnectionTime == 3)  // nothing from the server yet: the default
        var updates: [EventStreamUpdate] = []
        for try await update in request.updates() { updates.append(update) }
        let (first, second) = (ids(1...2), ids(3...4))
        // The third connection is answered 204: asked for, never open, then the end.
        #expect(
            updates.map(name) == [
                "connecting", "open", "e:" + first[0], "e:" + first[1], "lost", "reconnecting",
                "connecting", "open", "e:" + second[0], "e:" + second[1], "lost", "reconnecting",
                "connecting", "closed",
            ])
        #expect(waits(updates).count == 2)
        #expect(waits(updates).allSatisfy { $0 >= 0.010 && $0 <= 0.0125 })
        #expect(request.lastEventID == second[1])
        #expect(request.reconnectionTime == 0.01)
        #expect(try await streamStats(key).lastEventIDs == ["", first[1], second[1]])
    }

    @Test(
        "A retry: without data changes the reconnection time with no event; one connection ends lost, closed")
    func retryWithoutEvent() async throws {
        let key = streamKey()
        let url = try await DemoServer.url("/sse?key=\(key)&count=0&retry=2500")
        let request = client.stream(TestForm(url: url), reconnection: .never)
        var updates: [EventStreamUpdate] = []
        var timeWhenLost: TimeInterval?
        for try await update in request.updates() {
            updates.append(update)
            if update == .connection(.lost) { timeWhenLost = request.reconnectionTime }
        }
        #expect(updates.map(name) == ["connecting", "open", "lost", "closed"])
        #expect(timeWhenLost == 2.5)  // all of the connection was read before it was lost
        #expect(request.lastEventID == "")
    }

    @Test("A failure is preceded by closed, then thrown")
    func failureAfterClosed() async throws {
        let key = streamKey()
        let url = try await DemoServer.url("/sse?key=\(key)&type=text/plain")
        var updates: [EventStreamUpdate] = []
        await #expect {
            for try await update in client.stream(TestForm(url: url)).updates() { updates.append(update) }
        } throws: { error in
            (error as? NetworkError)?.kind == .validationFailed
        }
        #expect(updates.map(name) == ["connecting", "closed"])
    }

    @Test("events() still gives only the events")
    func eventsUnchanged() async throws {
        let key = streamKey()
        let url = try await DemoServer.url("/sse?key=\(key)&count=2&total=4&retry=10&end=drop")
        #expect(try await collect(client.stream(TestForm(url: url)).events()).map(\.id) == ids(1...4))
    }

    @Test(
        "An id: without data sets the last event ID with no event; a new connection keeps it until it dispatches"
    )
    func idWithoutEvent() throws {
        let url = "http://127.0.0.1:9/sse"
        let request = client.stream(TestForm(url: url))
        _ = request.updates()  // chooses events; reading would start the request
        let address = try #require(URL(string: url))
        let fields = ["Content-Type": "text/event-stream"]
        let response = HTTPURLResponse(
            url: address, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: fields)
        let head = try #require(response)
        _ = request.sink.open(head, attempt: 1)
        _ = try request.sink.write(Data("id: 7\n\nretry: 1200\n".utf8))
        #expect(request.lastEventID == "7")
        #expect(request.reconnectionTime == 1.2)
        #expect(request.sink.buffer.itemCount == 0)  // no event (the `open` change is not counted)
        let drop = NetworkError(
            .transport, failureReason: "lost", underlyingError: URLError(.networkConnectionLost))
        _ = request.sink.reconnectDelay(after: drop)
        _ = request.sink.open(head, attempt: 2)
        _ = try request.sink.write(Data(": hello\nid: 9\n".utf8))  // nothing dispatched yet
        #expect(request.lastEventID == "7")
        _ = try request.sink.write(Data("\n".utf8))
        #expect(request.lastEventID == "9")
    }

    @Test("A connection that ends before it dispatches anything keeps the Last-Event-ID of the one before")
    func quietConnectionKeepsLastEventID() async throws {
        let url = "https://api.example.com/quiet"
        let stubs = StubRegistry()
        let stream = { (text: String) in
            StubResponse(headers: ["Content-Type": "text/event-stream"], body: Data(text.utf8), chunkSize: 4)
        }
        stubs.stub(
            .get, url,
            [
                stream("retry: 1\nid: 5\ndata: a\n\n"), stream(": nothing yet\nid: 6\ndata: cut"),
                StubResponse(statusCode: 204),
            ])
        let events = try await collect(
            Client().stream(TestForm(url: url), session: Session(stubs: stubs)).events())
        #expect(events.map(\.data) == ["a"])
        #expect(stubs.requests.map { $0.value(forHTTPHeaderField: "Last-Event-ID") } == [nil, "5", "5"])
    }
}
