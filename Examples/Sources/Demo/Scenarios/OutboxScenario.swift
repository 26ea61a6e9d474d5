import Formwork
import Foundation

/// Scenario 10, the rest of "re-request after a network failure": actions taken while the server
/// refuses connections wait in a durable `Outbox`, with the pending count on screen; when the
/// server is back each is sent once, with its `Idempotency-Key`, and applied once.
@MainActor
final class OutboxScenario: Scenario, Requestable {
    let title = "Offline outbox"
    let summary =
        "Three actions queued while offline, on disk, sent when the server is back: each applied once."

    /// A like, a comment or a follow: a `POST` the server applies once per `Idempotency-Key`.
    struct ActionForm: RequestFormable {
        let url: String
        let action: String
        var method: HTTPMethod { .post }
        var parameters: Parameters { ["action": action] }
        var encoding: ParameterEncoding { .json }
    }

    /// What `/idempotency/count` answers.
    struct Count: Decodable, Sendable {
        let applied: Int
        let arrivals: Int
    }

    func run(on stage: Stage) async throws {
        let screen = Screen("Outbox", content: "nothing waiting")
        stage.board.show(ContainerWidget(screen))
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("formwork-demo-outbox-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }

        stage.say("The phone is offline: every connection is refused (a port where nothing listens).")
        let network = NetworkSwitch()
        let session = Session { $0.interceptors.adapters = [network.adapter] }
        stage.code(
            "let outbox = try Outbox(directory: appSupport/outbox, session: session)",
            "outbox.statusUpdates()   // the pending count on screen")
        let outbox = try Outbox(
            directory: directory, session: session,
            options: Outbox.Options(backoff: RetryPolicy(baseDelay: 0.2, maximumDelay: 1)))
        let statusTask = Task { [hub = stage.hub] in
            for await status in outbox.statusUpdates() {
                screen.content = Self.describe(status)
                hub.notify()
            }
        }
        defer { statusTask.cancel() }
        let deliveries = Probe<[Outbox.Delivery]>()
        deliveries.value = []
        let deliveryTask = Task { [hub = stage.hub] in
            for await delivery in outbox.deliveries() {
                deliveries.value?.append(delivery)
                hub.notify()
            }
        }
        defer { deliveryTask.cancel() }
        await stage.pause(1)

        let run = UUID().uuidString.prefix(8)
        let actions = ["like post 17", "comment “Nice!” on post 17", "follow @formwork"]
        var counters: [String] = []
        for (index, action) in actions.enumerated() {
            let counter = "demo-outbox-\(run)-\(index)"
            counters.append(counter)
            stage.code(
                "try await outbox.enqueue(ActionForm(action: \"\(action)\"))   // on disk when it returns")
            try await outbox.enqueue(
                ActionForm(url: "\(stage.base)/idempotency/apply?counter=\(counter)", action: action),
                tag: action)
            await stage.pause(0.5)
        }
        let pending = await outbox.pending()
        try stage.check(pending.count == 3, "3 actions wait in the outbox, each with its own Idempotency-Key")
        try await stage.wait(for: "the outbox to wait for the network") {
            screen.content.hasPrefix("3 waiting")
        }
        try stage.check(screen.content.hasPrefix("3 waiting"), "the screen shows: \(screen.content)")
        try stage.check(
            try await counts(counters, stage).allSatisfy { $0.arrivals == 0 },
            "the server has seen none of them")
        await stage.pause(1.5)

        stage.say("The network is back.")
        network.isOffline = false
        stage.code("await outbox.retryNow()   // NWPathMonitor does this on Apple platforms")
        await outbox.retryNow()
        try await stage.wait(for: "three deliveries") { deliveries.value?.count == 3 }
        let delivered = deliveries.value ?? []
        try stage.check(
            delivered.map { $0.entry.tag ?? "" } == actions,
            "delivered in the order they were made: \(actions)")
        try stage.check(
            delivered.allSatisfy { $0.response?.statusCode == 201 }, "each got the server's 201 Created")
        let counted = try await counts(counters, stage)
        try stage.check(
            counted.allSatisfy { $0.applied == 1 },
            "the server applied each exactly once (applied: \(counted.map(\.applied)))")
        try await stage.wait(for: "the screen to show nothing waiting") {
            screen.content == "nothing waiting"
        }
        try stage.check(screen.content == "nothing waiting", "the screen shows: \(screen.content)")
        await outbox.close()
        await stage.pause(1)
    }

    /// The server's counts for `counters`.
    private func counts(_ counters: [String], _ stage: Stage) async throws -> [Count] {
        var counts: [Count] = []
        for counter in counters {
            counts.append(
                try await request(
                    PathForm(base: stage.base, path: "/idempotency/count", parameters: ["counter": counter])
                ).decode(Count.self))
        }
        return counts
    }

    /// The screen's line for a status.
    private static func describe(_ status: Outbox.Status) -> String {
        switch status.phase {
        case .idle, .closed: status.pendingCount == 0 ? "nothing waiting" : "\(status.pendingCount) waiting"
        case .sending: "\(status.pendingCount) waiting — sending…"
        case .waiting: "\(status.pendingCount) waiting — no network, will try again"
        }
    }
}

/// The demo's network switch: while offline, requests go to a port where nothing listens.
final class NetworkSwitch: @unchecked Sendable {  // every access to `offline` holds `lock`
    private let lock = NSLock()
    private var offline = true

    /// Whether requests are refused.
    var isOffline: Bool {
        get { lock.withLock { offline } }
        set { lock.withLock { offline = newValue } }
    }

    /// The adapter that sends requests nowhere while offline (port 9, where nothing listens).
    var adapter: Adapter {
        Adapter { [self] request in
            guard isOffline, let url = request.url,
                var parts = URLComponents(url: url, resolvingAgainstBaseURL: false)
            else { return request }
            parts.port = 9
            var moved = request
            moved.url = parts.url
            return moved
        }
    }
}
