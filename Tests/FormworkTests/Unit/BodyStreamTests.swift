import Foundation
import Testing

@testable import Formwork

@Suite("A stream upload hands URLSession a fresh stream whenever it asks")
struct BodyStreamTests {
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
        let request = Client().upload(form, session: Session(stubs: stubs))
        await request.waitUntilRunning()
        let core = request.core
        let attempt = core.state.withLock { $0.machine.attempt }
        let sent = core.request?.httpBodyStream
        let fresh = core.taskNeedsNewBodyStream(attempt: attempt)
        // Compared as plain values: a failed expectation must not have to describe the streams.
        let isNew = fresh != nil && fresh !== sent
        #expect(isNew)
        #expect(form.made.count == 2)
        let body = fresh.map(contents(of:))
        #expect(body == payload)
        let stale = core.taskNeedsNewBodyStream(attempt: attempt + 1) == nil
        #expect(stale)  // not for another attempt
        request.cancel()
        _ = await request.handledString()
        let over = core.taskNeedsNewBodyStream(attempt: attempt) == nil
        #expect(over)  // nor once the request ended
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
        let request = Client().upload(OnceStream(url: url), session: Session(stubs: stubs))
        await request.waitUntilRunning()
        let attempt = request.core.state.withLock { $0.machine.attempt }
        let none = request.core.taskNeedsNewBodyStream(attempt: attempt) == nil
        #expect(none)
        let response = await request.handledString()
        #expect(response.error?.kind == .requestBuildFailed)
        #expect(response.error?.underlyingError is OnceStream.Gone)
    }
}
