import Foundation
import Testing

@testable import Formwork

@Suite("A stream upload hands URLSession a fresh stream whenever it asks")
struct BodyStreamTests {
    /// What the built-in transport's delegate answers when URLSession asks `request`'s current
    /// task for a new body stream.
    private func newBodyStream(_ request: UploadRequest, session: Session) async -> InputStream? {
        // The URLSession task is made when the transport task resumes, just after the attempt runs.
        let deadline = Date().addingTimeInterval(30)
        var made = (request.core.transportTask as? URLSessionTransportTask)?.task
        while made == nil, Date() < deadline {
            try? await Task.sleep(nanoseconds: 5_000_000)
            made = (request.core.transportTask as? URLSessionTransportTask)?.task
        }
        guard let task = made else { return nil }
        let answer = Protected<InputStream?>(nil)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            session.router.urlSession(session.urlSession, task: task) { stream in
                answer.withLock { $0 = stream }
                done.resume()
            }
        }
        return answer.withLock { $0 }
    }

    /// Reads a stream to its end.
    private func contents(of stream: InputStream) -> Data {
        stream.open()
        defer { stream.close() }
        var read = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            guard count > 0 else { break }
            read.append(contentsOf: buffer[0..<count])
        }
        return read
    }

    @Test("needNewBodyStream gets a new stream with the whole body, not the one already read")
    func freshStream() async throws {
        let payload = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let url = "https://stub.example/\(UUID().uuidString)"
        let stubs = StubRegistry()
        stubs.stub(.post, url, .json("{}", delay: 30))  // keeps the attempt running
        let form = TestStreamUpload(url: url, payload: payload)
        let session = Session(stubs: stubs)
        let request = Client().upload(form, session: session)
        await request.waitUntilRunning()
        let sent = request.core.request?.httpBodyStream
        let fresh = await newBodyStream(request, session: session)
        // Compared as plain values: a failed expectation must not have to describe the streams.
        let isNew = fresh != nil && fresh !== sent
        #expect(isNew)
        #expect(form.made.count == 2)
        let body = fresh.map(contents(of:))
        #expect(body == payload)
        let task = (request.core.transportTask as? URLSessionTransportTask)?.task
        request.cancel()
        _ = await request.handledString()
        // Not once the request ended: its task is no longer routed.
        let over = task.map { task in
            session.router.routedTaskCount == 0 && task.state != .running
        }
        #expect(over == true)
    }

    @Test("When the form cannot make a new stream, the attempt fails with the form's error")
    func factoryFails() async throws {
        final class Flaky: Sendable {
            let calls = Protected(0)
        }
        struct OnceStream: UploadStreamFormable {
            let url: String
            let flaky = Flaky()
            struct Gone: Error {}
            func makeStream() throws -> InputStream {
                let call = flaky.calls.withLock { count -> Int in
                    count += 1
                    return count
                }
                guard call == 1 else { throw Gone() }
                return InputStream(data: Data("body".utf8))
            }
        }
        let url = "https://stub.example/\(UUID().uuidString)"
        let stubs = StubRegistry()
        stubs.stub(.post, url, .json("{}", delay: 30))
        let session = Session(stubs: stubs)
        let request = Client().upload(OnceStream(url: url), session: session)
        await request.waitUntilRunning()
        let none = await newBodyStream(request, session: session) == nil
        #expect(none)
        let response = await request.handledString()
        #expect(response.error?.kind == .requestBuildFailed)
        #expect(response.error?.underlyingError is OnceStream.Gone)
    }
}
