import Foundation
import Testing

@testable import Formwork

/// The model hooks' names, argument order and defaults (issue 25 §2): `bind(to:)` decodes like
/// `responseDecodable` (the whole body unless given a key path), `bindEnvelope(to:)` like
/// `responseEnvelope` (`"data"`, then ``Envelope/standard``).
@Suite("Model hooks: bind(to:) and bindEnvelope(to:)", .timeLimit(.minutes(1)))
@MainActor
struct ModelHookNamesTests {
    private let url = "https://api.example.com/list"
    private let client = Client()
    /// The stubbed envelopes' success code.
    private let ok = #"{"code": 0, "message": "ok", "#

    /// A request whose stubbed answer is `body`.
    private func request(answering body: String) -> DataRequest {
        let stubs = StubRegistry()
        stubs.stub(.get, url, .json(body))
        return client.request(TestForm(url: url), session: Session(stubs: stubs))
    }

    @Test("bind(to:) decodes the whole body unless given a key path")
    @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
    func bindDefaults() async {
        let whole = RequestModel<[Int]>()
        await request(answering: "[1, 2]").bind(to: whole).settled()
        #expect(whole.value == [1, 2])
        let inside = RequestModel<[Int]>()
        await request(answering: #"{"data": [3]}"#).bind(to: inside, atKeyPath: "data").settled()
        #expect(inside.value == [3])
    }

    @Test("bindEnvelope(to:) reads \"data\" through the standard envelope, whose message is at \"message\"")
    @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
    func bindEnvelopeDefaults() async {
        let list = RequestModel<[Int]>()
        // `settled()` (DocSnippetSupport) returns once the model's handler ran.
        await request(answering: ok + #""data": [1, 2]}"#).bindEnvelope(to: list).settled()
        #expect(list.value == [1, 2])

        let failed = RequestModel<[Int]>()
        let closed = #"{"code": 9, "message": "Closed today", "data": null}"#
        await request(answering: closed).bindEnvelope(to: failed).settled()
        #expect(failed.phase.error?.businessCode == "9")
        #expect(failed.message?.hasPrefix("Closed today") == true)  // "(9)" in DEBUG

        let named = RequestModel<[Int]>()
        let msg = Envelope(messagePath: "msg", successCodes: ["0"])
        await request(answering: #"{"code": 0, "msg": "ok", "data": {"list": [4]}}"#)
            .bindEnvelope(to: named, atKeyPath: "data.list", envelope: msg).settled()
        #expect(named.value == [4])
    }
}
