import ExampleSupport
import Formwork
import FormworkWebSocketNIOCore
import Foundation
import Observation

/// Scenario 11: a live price feed over a WebSocket, bound to the observable model a SwiftUI screen
/// watches. The feed's server stops (its process exits) and starts again on the same port; the
/// socket reconnects by itself with back-off, and the feed goes on. On Linux the socket runs on
/// the SwiftNIO transport of the Examples package (corelibs URLSession has no WebSockets).
@MainActor
final class WebSocketScenario: Scenario {
    let title = "A live WebSocket feed that survives a server restart"
    let summary =
        "A WebSocket bound to a RequestModel; its server stops and starts again, and the socket reconnects by itself."

    private struct PricesForm: WebSocketFormable {
        let url: String
    }

    func run(on stage: Stage) async throws {
        guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else {
            stage.say("RequestModel needs macOS 14 / iOS 17 (Observation); nothing to show on this system.")
            return
        }
        try await play(on: stage)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    private func play(on stage: Stage) async throws {
        // The feed gets a server of its own, so that stopping it leaves the other scenarios' alone.
        var server: DemoServerProcess? = try DemoServerProcess()
        guard let base = server?.baseURL, let port = URL(string: base)?.port else {
            throw DemoFailure("the feed's server announced no port")
        }
        let rate = stage.isPaced ? 4 : 40
        var configuration = Session.Configuration()
        // The WebSocket client without TLS (the feed is ws on 127.0.0.1): the demo links no TLS
        // library. An app gives its sessions NIOWebSocketTransport(), which also opens wss URLs.
        configuration.webSocketTransport = NIOWebSocketConnector(makeTLSHandler: nil)
        let session = Session(configuration: configuration)
        let model = RequestModel<WebSocketMessage>()
        let record = Record()
        Self.watch(model, record: record, stage: stage)
        stage.say("A price feed pushes \(rate) ticks a second over a WebSocket.")
        stage.code(
            "let prices = RequestModel<WebSocketMessage>()   // @Observable, what the view watches",
            "session.webSocket(PricesForm(), options: .init(reconnection: .standard)).bind(to: prices)")
        let socket = session.webSocket(
            PricesForm(url: "ws://127.0.0.1:\(port)/ws/push?count=1000000&rate=\(rate)&close=0"),
            options: .init(reconnection: WebSocketReconnection(initialDelay: 0.25, maximumDelay: 1)))
        socket.bind(to: model)
        try await stage.wait(for: "the first ticks") { record.values >= 3 }
        try stage.check(model.connection == .open && model.phase.isLoading, "the feed is open and ticking")
        await stage.pause(1)

        stage.say("The server stops: its process exits, and every connection with it.")
        server = nil
        try await stage.wait(for: "the socket to notice") { record.connections.contains("reconnecting") }
        try stage.check(model.phase.isLoading, "the model shows “reconnecting” and keeps the last tick")
        await stage.pause(1.5)

        stage.say("The server starts again on the same port.")
        let ticksBefore = record.values
        server = try DemoServerProcess(port: port)
        try await stage.wait(for: "the feed to come back", timeout: .seconds(30)) {
            record.opens >= 2 && record.values >= ticksBefore + 3
        }
        try stage.check(
            record.opens >= 2 && model.phase.isLoading,
            "the socket reconnected by itself (\(record.connections.joined(separator: " → "))) and ticks again"
        )
        await stage.pause(1)

        stage.code("await socket.close()")
        await socket.close()
        try await stage.wait(for: "the model to end") {
            model.connection == .closed && !model.phase.isLoading
        }
        try stage.check(
            model.phase.value != nil, "closed: the model ends succeeded with the last tick, \(record.last)")
        withExtendedLifetime(server) {}
    }

    /// What the screen saw.
    @MainActor
    private final class Record {
        var connections: [String] = []
        var opens: Int { connections.count { $0 == "open" } }
        var values = 0
        var last = ""
    }

    /// Prints the model's connection at each change and counts its values, as a view would see
    /// them (`withObservationTracking`, as SwiftUI does).
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    private static func watch(_ model: RequestModel<WebSocketMessage>, record: Record, stage: Stage) {
        withObservationTracking {
            _ = model.connection
            _ = model.value
        } onChange: {
            // Called before the change is made: read the model on the main actor's next turn.
            Task { @MainActor in
                let connection = name(of: model.connection)
                if record.connections.last != connection {
                    record.connections.append(connection)
                    stage.say("  model.connection → \(connection)")
                }
                if case .text(let text) = model.value, text != record.last {
                    record.last = text
                    record.values += 1
                }
                stage.hub.notify()
                if model.connection != .closed { watch(model, record: record, stage: stage) }
            }
        }
    }

    private static func name(of state: StreamConnectionState) -> String {
        switch state {
        case .idle: "idle"
        case .connecting: "connecting"
        case .open: "open"
        case .lost: "lost"
        case .reconnecting: "reconnecting"
        case .closed: "closed"
        }
    }
}
