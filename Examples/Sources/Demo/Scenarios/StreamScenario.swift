import Formwork
import Foundation

/// Scenario 8: a live score feed as server-sent events. The server drops the connection twice in
/// the middle of an event; the stream reconnects by itself with `Last-Event-ID`, so no event is
/// lost or repeated, and a 204 ends it.
@MainActor
final class StreamScenario: Scenario, Requestable {
    let title = "A live event stream that reconnects"
    let summary =
        "Server-sent events; the server drops the connection mid-event and the stream resumes after the last id."

    private struct Stats: Decodable, Sendable {
        let connections: Int
        let lastEventIDs: [String]
    }

    private struct LiveForm: RequestFormable {
        let url: String
    }

    func run(on stage: Stage) async throws {
        let key = "live-\(UUID().uuidString.prefix(8))"
        let rate = stage.isPaced ? 3 : 50
        stage.say("The feed sends 3 events per connection, then drops it halfway through the next one.")
        stage.code(
            "for try await event in stream(LiveForm()).events() {",
            "    show(event.data)   // reconnects after a drop, sending Last-Event-ID",
            "}")
        let form = LiveForm(
            url: "\(stage.base)/sse?key=\(key)&count=3&total=6&retry=300&end=drop&rate=\(rate)")
        var received: [ServerSentEvent] = []
        for try await event in stream(form).events() {
            received.append(event)
            stage.say("  ← \(event.data)  (id \(event.id))")
        }
        stage.say("The server answered 204: the feed is over.")
        let ids = (1...6).map { String(format: "%08d", $0) }
        try stage.check(received.map(\.id) == ids, "6 events arrived, in order, none lost or repeated")
        let stats = try await request(LiveForm(url: "\(stage.base)/sse/stats?key=\(key)")).decode(Stats.self)
        try stage.check(
            stats.connections == 3 && stats.lastEventIDs == ["", ids[2], ids[5]],
            "3 connections: the 2nd sent Last-Event-ID \(ids[2]), the 3rd \(ids[5]) (and got 204)")
        await stage.pause(1)
    }
}
