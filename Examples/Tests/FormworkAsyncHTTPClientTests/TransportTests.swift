import Formwork
import Foundation
import NIOConcurrencyHelpers
import NIOPosix
import Testing

@testable import FormworkAsyncHTTPClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The transport driven directly through the seam, against the real demo server.
@Suite("AsyncHTTPClient transport")
struct TransportTests {
    @Test("A GET delivers the head, the body and one finish, in order")
    func getWithBody() async throws {
        var request = try serverRequest("/echo?city=Paris")
        request.setValue("yes", forHTTPHeaderField: "X-Formwork")
        let events = try await exchange(TransportRequest(urlRequest: request))
        #expect(events.finishError == nil)
        let response = try #require(events.response)
        #expect(response.statusCode == 200)
        #expect(response.url == request.url)
        #expect(response.value(forHTTPHeaderField: "Content-Type")?.hasPrefix("application/json") == true)
        let echo = try json(events.body)
        #expect(echo["method"] as? String == "GET")
        #expect(echo["query"] as? String == "city=Paris")
        #expect((echo["headers"] as? [String: String])?["x-formwork"] == "yes")
    }

    @Test("The recommended configuration leaves AsyncHTTPClient's own tracing off")
    func noTracingOfItsOwn() {
        #expect(AsyncHTTPClientTransport.recommendedConfiguration.tracing.tracer == nil)
    }

    @Test("Repeated response fields are joined with a comma")
    func repeatedFields() async throws {
        let request = try serverRequest("/headers/set?X-Twice=one&X-Twice=two")
        let events = try await exchange(TransportRequest(urlRequest: request))
        #expect(events.response?.value(forHTTPHeaderField: "X-Twice") == "one, two")
    }

    @Test("A POST sends its bytes and reports them sent")
    func postData() async throws {
        var request = try serverRequest("/echo", method: "POST")
        request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        let body = Data("hello, transport".utf8)
        let events = try await exchange(TransportRequest(urlRequest: request, body: .data(body)))
        let echo = try json(events.body)
        #expect(echo["method"] as? String == "POST")
        #expect(echo["body"] as? String == "hello, transport")
        let sent = events.events.compactMap {
            if case .sent(let total, let expected) = $0 { (total, expected) } else { nil }
        }
        #expect(sent.last?.0 == Int64(body.count))
        #expect(sent.allSatisfy { $0.1 == Int64(body.count) })
    }

    @Test("A file upload streams the file with its length; the server hashes what arrived")
    func fileUpload() async throws {
        let size = 6 << 20
        let content = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) })
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ahc-upload-\(UUID().uuidString)")
        try content.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let request = try serverRequest("/upload", method: "PUT")
        let events = try await exchange(TransportRequest(urlRequest: request, body: .file(file)))
        #expect(events.finishError == nil)
        let result = try json(events.body)
        #expect(result["bytes"] as? Int == size)
        #expect(result["md5"] as? String == md5(content))
        #expect(result["contentLength"] as? Int == size)
        #expect(result["chunked"] as? Bool == false)
        let sent = events.events.compactMap {
            if case .sent(let total, let expected) = $0 { (total, expected) } else { nil }
        }
        #expect(sent.last?.0 == Int64(size))
        #expect(sent.allSatisfy { $0.1 == Int64(size) })
        // At most once per 64 KiB chunk, never per byte.
        #expect(sent.count <= size / (64 << 10) + 1)
        #expect(sent.count > 1)
    }

    @Test("A streamed upload is sent chunked")
    func streamedUpload() async throws {
        let content = Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 / 7) })
        let request = try serverRequest("/upload", method: "POST")
        let events = try await exchange(
            TransportRequest(urlRequest: request, body: .stream({ InputStream(data: content) })))
        #expect(events.finishError == nil)
        let result = try json(events.body)
        #expect(result["bytes"] as? Int == content.count)
        #expect(result["md5"] as? String == md5(content))
        #expect(result["chunked"] as? Bool == true)
    }

    @Test("A stream factory that throws ends the exchange with its error")
    func throwingStreamFactory() async throws {
        struct NoStream: Error {}
        let request = try serverRequest("/upload?tag=ahc-nostream", method: "POST")
        let events = try await exchange(
            TransportRequest(urlRequest: request, body: .stream({ throw NoStream() })))
        #expect(events.finishError is NoStream)
        #expect(events.response == nil)
    }

    @Test("receiveResponseHead returning false stops the exchange: no body, one cancelled finish")
    func responseRefused() async throws {
        let request = try serverRequest("/files/\(64 << 20)")
        let events = try await exchange(
            TransportRequest(urlRequest: request), events: RecordingEvents(acceptsResponse: false))
        #expect(events.response?.statusCode == 200)
        #expect(events.body.isEmpty)
        #expect(urlErrorCode(events.finishError) == .cancelled)
    }

    @Test("Cancel before resume: one cancelled finish, and resume sends nothing")
    func cancelBeforeResume() async throws {
        let tag = "ahc-cancel-\(UUID().uuidString)"
        let events = RecordingEvents()
        let task = AsyncHTTPClientTransport().makeTask(
            for: TransportRequest(urlRequest: try serverRequest("/security/record?tag=\(tag)")),
            events: events)
        task.cancel()
        task.cancel()
        task.resume()
        try await events.waitForFinish()
        events.expectWellOrdered()
        #expect(urlErrorCode(events.finishError) == .cancelled)
        // The server never saw the request (asked after the cancel: the request was never sent).
        let seen = try await exchange(
            TransportRequest(urlRequest: try serverRequest("/security/seen?tag=\(tag)")))
        #expect(try json(seen.body)["count"] as? Int == 0)
        #expect(events.events.count == 1)
    }

    @Test("Cancel mid-body, inline and queued delivery: one cancelled finish", arguments: [false, true])
    func cancelMidBody(bodyMayBlock: Bool) async throws {
        let task = NIOLockedValueBox<(any TransportTask)?>(nil)
        let events = RecordingEvents(onBody: { _ in task.withLockedValue { $0 }?.cancel() })
        let request = TransportRequest(
            urlRequest: try serverRequest("/files/\(256 << 20)"), bodyMayBlock: bodyMayBlock)
        let made = AsyncHTTPClientTransport().makeTask(for: request, events: events)
        task.withLockedValue { $0 = made }
        made.resume()
        try await events.waitForFinish()
        events.expectWellOrdered()
        #expect(urlErrorCode(events.finishError) == .cancelled)
        #expect(events.bodyCount < 256 << 20)
    }

    @Test("A body that may block is queued off the event loop with bounded memory")
    func backPressure() async throws {
        let size = 256 << 20
        // A slow disk: each chunk takes a while to "write".
        let onLoop = NIOLockedValueBox(0)
        let events = RecordingEvents(
            keepsBody: false,
            onBody: { _ in
                if MultiThreadedEventLoopGroup.currentEventLoop != nil { onLoop.withLockedValue { $0 += 1 } }
                usleep(300)
            })
        let request = TransportRequest(urlRequest: try serverRequest("/files/\(size)"), bodyMayBlock: true)
        let made = AsyncHTTPClientTransport().makeTask(for: request, events: events)
        made.resume()
        try await events.waitForFinish()
        events.expectWellOrdered()
        #expect(events.finishError == nil)
        #expect(events.bodyCount == size)
        #expect(onLoop.withLockedValue { $0 } == 0, "a body chunk was delivered on an event loop")
        let queued = try #require(made as? AsyncHTTPClientTransportTask).maximumQueuedBodyBytes
        // Paused once a batch is gathered: at most the batch being received and the one gathered
        // meanwhile, each at most one read past the limit.
        #expect(queued > 0)
        #expect(queued <= 2 * (AsyncHTTPClientTransport.batchLimit + BodyBatches.typicalPartSize))
    }
}
