import Foundation
import Testing

@testable import Formwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport that reports each response body as a slice of a larger `Data` (its indices do
/// not start at 0), in one part or in two.
private struct SliceTransport: Transport {
    let parts: Int

    func makeTask(for request: TransportRequest, events: any TransportEvents) -> any TransportTask {
        SliceTask(url: request.urlRequest.url, parts: parts, events: events)
    }
}

private final class SliceTask: TransportTask {
    static let whole = Data("--{\"data\":{\"city\":\"oslo\"}}--".utf8)
    let url: URL?
    let parts: Int
    let events: any TransportEvents

    init(url: URL?, parts: Int, events: any TransportEvents) {
        self.url = url
        self.parts = parts
        self.events = events
    }

    func resume() {
        guard let url else { return events.finish(URLError(.badURL)) }
        let head = TransportResponseHead(
            url: url, statusCode: 200,
            headerFields: [HTTPHeader(name: "Content-Type", value: "application/json")])
        guard events.receiveResponseHead(head) else { return events.finish(nil) }
        let body = Self.whole[2..<(Self.whole.count - 2)]
        if parts == 1 {
            events.receiveBody(body)
        } else {
            let middle = body.startIndex + body.count / 2
            events.receiveBody(body[..<middle])
            events.receiveBody(body[middle...])
        }
        events.finish(nil)
    }

    func cancel() {}
}

@Suite("A body reported as a slice")
struct BodySliceTests {
    struct City: Decodable, Equatable {
        let city: String
    }

    @Test("The outcome's body starts at index 0 and holds the slice's bytes", arguments: [1, 2])
    func outcomeStartsAtZero(parts: Int) async throws {
        let session = Session { $0.transport = SliceTransport(parts: parts) }
        let request = Client().request(TestForm(url: "http://slice.invalid/weather"), session: session)
        let outcome = await request.core.outcome()
        let data = try #require(outcome.data)
        #expect(data.startIndex == 0)
        #expect(data == Data("{\"data\":{\"city\":\"oslo\"}}".utf8))
        #expect(try await request.decode(City.self, atKeyPath: "data") == City(city: "oslo"))
    }
}
