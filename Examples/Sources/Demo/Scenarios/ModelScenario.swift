import Formwork
import Foundation
import Observation

/// Scenario 9: the observable model a SwiftUI screen watches, observed here the way SwiftUI
/// observes it (`withObservationTracking`) and printed instead of drawn. The request fails for
/// want of a network, the model shows the message and offers `reload()`, and the retry succeeds
/// once the server is back.
@MainActor
final class ModelScenario: Scenario, Requestable {
    let title = "An observable model, as a SwiftUI screen sees it"
    let summary =
        "RequestModel goes loading → failed with a message → reload() → succeeded; every change is observed."

    func run(on stage: Stage) async throws {
        guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) else {
            stage.say("RequestModel needs macOS 14 / iOS 17 (Observation); nothing to show on this system.")
            return
        }
        try await play(on: stage)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    private func play(on stage: Stage) async throws {
        let key = "model-\(UUID().uuidString.prefix(8))"
        let model = RequestModel<FlakyReply>()
        let phases = Probe<[String]>()
        phases.value = []
        Self.watch(model) { [hub = stage.hub] phase in
            phases.value?.append(phase)
            stage.say("  model.phase → \(phase)")
            hub.notify()
        }
        stage.say("The news server is down: it closes every connection without answering.")
        stage.code(
            "let model = RequestModel<News>()          // @Observable, what the view watches",
            "request(NewsForm()).bind(to: model, atKeyPath: \"data\")",
            "// SwiftUI: switch model.phase { case .loading: ProgressView() … }")
        request(FlakyNewsForm(base: stage.base, key: key)).bind(to: model, atKeyPath: "data")
        try await stage.wait(for: "the request to fail") { model.phase.error != nil }
        try stage.check(
            model.message != nil && model.canReload,
            "failed, with the message “\(model.message ?? "")” and a retry on offer")
        await stage.pause(1)
        stage.code(
            "GET /flaky/recover?key=\(key)   // the server is back", "model.reload()   // the Retry button")
        _ = try await request(PathForm(base: stage.base, path: "/flaky/recover", parameters: ["key": key]))
            .data()
        model.reload()
        try await stage.wait(for: "the retry to succeed") { model.phase.value != nil }
        let attempt = model.value?.attempt ?? 0
        try stage.check(attempt >= 2, "succeeded on retry: the server saw \(attempt) requests")
        let seen = phases.value ?? []
        try stage.check(
            seen.first == "loading" && seen.contains("failed") && seen.last == "succeeded",
            "the view saw \(seen.joined(separator: " → "))")
        await stage.pause(1)
    }

    /// Calls `changed` with the name of the model's phase after each change, on the main actor.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    private static func watch(
        _ model: RequestModel<FlakyReply>, _ changed: @escaping @MainActor (String) -> Void
    ) {
        withObservationTracking {
            _ = model.phase
        } onChange: {
            // Called before the change is made: read the new phase on the main actor's next turn.
            Task { @MainActor in
                changed(name(of: model.phase))
                watch(model, changed)
            }
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    private static func name(of phase: RequestModel<FlakyReply>.Phase) -> String {
        switch phase {
        case .idle: "idle"
        case .loading: "loading"
        case .succeeded: "succeeded"
        case .failed: "failed"
        }
    }
}
