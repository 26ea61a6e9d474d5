import Foundation
import Testing

@testable import Formwork

/// Adds a header to every attempt it adapts.
private struct HeaderAdapter: RequestAdapter {
    func adapt(_ request: OutgoingRequest) async throws -> OutgoingRequest {
        var request = request
        request.setValue("yes", forHTTPHeaderField: "X-Adapted")
        return request
    }
}

/// When a request made in code with no actor starts: never before the statement that made it has
/// chained everything, and not at all until something asks for it.
@Suite("When a request starts, from nonisolated code")
struct StartTimingTests {
    let client = Client()
    let url = "https://api.example.com/start"

    @Test("An adapter chained on the same line applies to the first attempt, every time")
    func adapterOnSameLine() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, url, .json("{}"))
        let session = Session(stubs: stubs)
        for _ in 0..<300 {
            _ = try await client.request(TestForm(url: url), session: session).adapt(HeaderAdapter()).data()
        }
        let adapted = stubs.requests.filter { $0.value(forHTTPHeaderField: "X-Adapted") == "yes" }
        #expect(stubs.requests.count == 300)
        #expect(adapted.count == 300)
    }

    @Test("A request with nothing chained waits for resume(), then runs once")
    func waitsForResume() async throws {
        let stubs = StubRegistry()
        stubs.stub(.get, url, .json("{}"))
        stubs.stub(.get, url + "/other", .json("{}"))
        let session = Session(stubs: stubs)
        let waiting = client.request(TestForm(url: url), session: session)
        // A whole other request goes through the same session meanwhile.
        _ = try await client.request(TestForm(url: url + "/other"), session: session).data()
        #expect(stubs.requests.map { $0.url?.path } == ["/start/other"])
        #expect(waiting.request == nil)
        #expect(!waiting.isFinished)

        waiting.resume().resume()
        _ = try await waiting.data()
        #expect(stubs.requests.map { $0.url?.path } == ["/start/other", "/start"])
    }
}
