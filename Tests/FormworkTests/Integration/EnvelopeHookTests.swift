import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

@Suite("Envelope decoding against the demo server", .timeLimit(.minutes(5)))
struct EnvelopeHookTests {
    let client = Client()
    /// The demo server's envelope: `{code, msg, data}`, so its message path is named.
    private let demo = Envelope(messagePath: "msg", successCodes: ["0"])

    private struct ArticlePage: Decodable, Sendable {
        let list: [Article]
        let page: Int
        let total: Int
    }

    private func request(_ path: String) async throws -> DataRequest {
        client.request(TestForm(url: try await DemoServer.url(path)))
    }

    @Test("data, data.list and nothing decode behind a success code, async and in a handler")
    func success() async throws {
        let page = try await request("/articles?page=2").decodeEnvelope(ArticlePage.self)
        #expect(page.page == 2)
        #expect(page.list.first?.id == 11)
        let list = try await request("/articles").decodeEnvelope([Article].self, atKeyPath: "data.list")
        #expect(list.count == 10)
        _ = try await request("/business-error?code=0&msg=ok").decodeEnvelope(EmptyBody.self)
        let small = try await request("/articles?size=3")
        let handled = await withCheckedContinuation { continuation in
            small.responseEnvelope(of: [Article].self, atKeyPath: "data.list") {
                continuation.resume(returning: $0)
            }
        }
        #expect(handled.value?.map(\.id) == [1, 2, 3])
    }

    @Test("A failure code is a business error with the server's code and message", arguments: [200, 500])
    func business(status: Int) async throws {
        let path = "/business-error?status=\(status)&code=1001&msg=Insufficient%20balance"
        await #expect {
            try await request(path).decodeEnvelope(EmptyBody.self, envelope: demo)
        } throws: { error in
            let error = error as? NetworkError
            return error?.kind == .business && error?.businessCode == "1001"
                && error?.businessMessage == "Insufficient balance" && error?.statusCode == status
        }
        let failing = try await request(path)
        let handled = await withCheckedContinuation { continuation in
            failing.responseEnvelope(of: Article?.self, envelope: demo) { continuation.resume(returning: $0) }
        }
        #expect(handled.error?.kind == .business)
        #expect(handled.error?.userMessage.hasPrefix("Insufficient balance") == true)
    }

    @Test("A string code and a custom envelope from a JSONErrorable type")
    func customEnvelopes() async throws {
        await #expect {
            try await request("/business-error?code=E42&msg=Nope").decodeEnvelope(EmptyBody.self)
        } throws: { ($0 as? NetworkError)?.businessCode == "E42" }
        let weather = try await request("/weather?city=paris")
            .decodeEnvelope(Weather.self, envelope: WeatherError.envelope)
        #expect(weather.city == "paris")
        await #expect {
            try await request("/weather?city=atlantis").decodeEnvelope(
                EmptyBody.self, envelope: WeatherError.envelope)
        } throws: { ($0 as? NetworkError)?.businessMessage == "City not found" }
    }

    @Test("Bodies that are not envelopes fail as unreadable; statuses without one stay status errors")
    func notEnvelopes() async throws {
        await #expect {
            try await request("/weather?city=x").decodeEnvelope(EmptyBody.self)
        } throws: { ($0 as? NetworkError)?.kind == .keyPathNotFound }
        await #expect {
            try await request("/json/invalid").decodeEnvelope(EmptyBody.self)
        } throws: { ($0 as? NetworkError)?.kind == .invalidJSON }
        await #expect {
            try await request("/status/500").decodeEnvelope(EmptyBody.self)
        } throws: { ($0 as? NetworkError)?.kind == .unacceptableStatusCode }
    }
}
