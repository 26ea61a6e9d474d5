import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

extension TimingSensitiveSuites {
    /// A reader slower than the server never makes a stream overflow or lose an event: by default
    /// the stream stops reading from the network until the reader catches up (a fast stream read
    /// by an idle loop once ended with `streamBufferOverflow` after 5,000-96,000 events). The
    /// server sends as fast as it can, which keeps both cores busy: run apart from timed suites.
    @Suite("Stream back-pressure against the demo server", .serialized, .timeLimit(.minutes(5)))
    struct StreamBackPressureTests {
        let client = Client()

        /// Events of 1 KiB, as fast as the server can send them, ending with a 204 on the
        /// reconnection. Kept small (a few MiB) with small buffers: the suites beside run too.
        private func floodURL(_ key: String, count: Int = 3_000) async throws -> String {
            try await DemoServer.url("/sse?key=\(key)&count=\(count)&total=\(count)&size=1024")
        }

        @Test(
            "A reader that stops for 2 s after 1,000 of 3,000 events then goes on gets every event, in order")
        func pausedReaderGetsEverything() async throws {
            let count = 3_000
            // 3 MiB against a 256 KiB buffer: the old stream overflowed during the pause.
            let stream = client.stream(
                TestForm(url: try await floodURL(streamKey(), count: count)), bufferLimit: 256 * 1024)
            var received = 0
            var outOfOrder: (expected: String, got: String)?
            for try await event in stream.events() {
                received += 1
                if outOfOrder == nil, event.id != ids([received])[0] {
                    outOfOrder = (ids([received])[0], event.id)
                }
                // The reader is busy elsewhere for 2 s: the behaviour under test, not a wait for it.
                if received == 1_000 { try await Task.sleep(nanoseconds: 2_000_000_000) }
            }
            #expect(received == count)
            #expect(outOfOrder == nil, "event ids out of order: \(String(describing: outOfOrder))")
            #expect(stream.bufferPolicy == .slowDown)
        }

        @Test("A reader that awaits a request on the same session for each event keeps going")
        func readerAwaitingTheSameSession() async throws {
            // The stream's wait for its reader must not hold the callbacks of the session's other
            // requests (over URLSession they shared one delivery queue: the reader waited for itself).
            let session = Session()
            let count = 150
            let detail = TestForm(url: try await DemoServer.url("/json/array"))
            let stream = client.stream(
                TestForm(url: try await floodURL(streamKey(), count: count)), session: session,
                bufferLimit: 4 * 1024)
            let reading = Task {
                var received = 0
                for try await _ in stream.events() {
                    _ = try await client.request(detail, session: session).data()
                    received += 1
                }
                return received
            }
            let finished = await eventually("the reader got through every event", within: 120) {
                stream.isFinished
            }
            if !finished { reading.cancel() }
            #expect(try await reading.value == count)
        }

        @Test("While the reader is a whole buffer behind, the stream holds at most its limit")
        func slowReaderHoldsAtMostTheLimit() async throws {
            let limit = 64 * 1024
            let stream = client.stream(
                TestForm(url: try await floodURL(streamKey(), count: 2_000)), bufferLimit: limit)
            let events = stream.events()
            var iterator = events.makeAsyncIterator()
            guard try await iterator.next() != nil else {
                Issue.record("the stream ended before its first event")
                return
            }
            // The server sends about 2 MiB; the reader takes nothing until the buffer is full.
            await eventually("the buffer fills up") { stream.sink.buffer.byteCount > limit / 2 }
            #expect(stream.sink.buffer.byteCount <= limit)
            var received = 1
            while try await iterator.next() != nil {
                received += 1
                #expect(stream.sink.buffer.byteCount <= limit)
            }
            #expect(received == 2_000)
        }

        @Test(
            "With bufferPolicy .dropOldest, a reader behind gets the newest events, in order, and the last one"
        )
        func dropOldestKeepsTheNewest() async throws {
            let count = 2_000
            let stream = client.stream(
                TestForm(url: try await floodURL(streamKey(), count: count)), bufferLimit: 32 * 1024,
                bufferPolicy: .dropOldest)
            let events = stream.events()
            var iterator = events.makeAsyncIterator()
            var received: [String] = []
            if let first = try await iterator.next() { received.append(first.id) }
            // The reader waits until every event arrived: all but the newest ~32 KiB were dropped.
            await eventually("every event arrived, held or dropped") {
                received.count + stream.sink.buffer.droppedCount + stream.sink.buffer.itemCount == count
            }
            while let event = try await iterator.next() { received.append(event.id) }
            #expect(received.count < count)
            #expect(received.last == ids([count])[0])
            #expect(received == received.sorted())
            #expect(stream.sink.buffer.droppedCount + received.count == count)
        }
    }
}
