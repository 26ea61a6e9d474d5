import Formwork
import Foundation

/// Scenario 7, MBNetwork's unfinished "网络异常重新请求": a request fails for want of a network, a
/// reload prompt covers the screen, and tapping it (once the server is back) sends the same
/// request again through the same hooks, which now succeeds.
@MainActor
final class ReloadScenario: Scenario, Requestable {
    let title = "Reload after a network failure"
    let summary = "A ReloadView after a network failure; tapping it re-sends the request through every hook."

    func run(on stage: Stage) async throws {
        let screen = Screen("News", content: "(no headlines yet)")
        let warning = Headless.Alert()
        let success = Headless.Alert(message: "Headlines updated")
        stage.board.show(
            ContainerWidget(screen), AlertWidget("Warning", alert: warning, style: .red),
            AlertWidget("Success", alert: success, style: .green))
        let key = "news-\(UUID().uuidString.prefix(8))"
        stage.say("The news server is down: it closes every connection without answering.")
        await stage.pause(1)

        stage.code(
            "request(NewsForm())", "    .load(LoadType.default(container: screen))",
            "    .warn(WeatherError.self, with: warningAlert)",
            "    .inform(WeatherError.self, with: successAlert)",
            "    .reload(on: screen)",
            "    .responseDecodable(of: News.self, atKeyPath: \"data\") { screen.content = … }")
        let attempts = Probe<[DataResponse<FlakyReply>]>()
        attempts.value = []
        let news = request(FlakyNewsForm(base: stage.base, key: key))
            .load(LoadType.default(container: screen))
            .warn(WeatherError.self, with: warning)
            .inform(WeatherError.self, with: success)
            .reload(on: screen)
            .responseDecodable(of: FlakyReply.self, atKeyPath: "data") { [hub = stage.hub] response in
                attempts.value?.append(response)
                if let reply = response.value {
                    screen.content = "5 headlines (the server saw \(reply.attempt) requests)"
                }
                hub.notify()
            }
        try await stage.wait(for: "the first attempt to end") { attempts.value?.count == 1 }
        var seen = 1
        let failure = attempts.value?.first?.error
        try stage.check(failure?.isNetworkFailure == true, "the request failed with a network error")
        try stage.check(
            screen.masks.count == 1 && screen.masks.first is Headless.ReloadView,
            "the loading mask left and a ReloadView covers the screen")
        try stage.check(
            warning.presentedMessages == [failure?.userMessage ?? "-"],
            "the warning says: \(failure?.userMessage ?? "none")")

        let recovered = Probe<Bool>()
        let recover = {
            stage.code("GET /flaky/recover?key=\(key)   // the server is back")
            _ = try await self.request(
                PathForm(base: stage.base, path: "/flaky/recover", parameters: ["key": key])
            )
            .data()
            recovered.value = true
            stage.hub.notify()
        }
        if stage.options.mode == .interactive {
            stage.say(
                stage.console.paint(
                    "Press r to tap “Reload”. The server comes back in 3 s; tapping sooner fails again.",
                    .bold))
            Task {
                try? await Task.sleep(for: .seconds(3))
                try? await recover()
            }
        } else {
            await stage.pause(1.5)
            try await recover()
            await stage.pause(1)
        }

        while attempts.value?.last?.error != nil {
            if stage.options.mode == .interactive {
                if await Keyboard.waitForKey(in: ["r"]) == nil {
                    stage.say("(stdin closed: tapping “Reload” once the server is back)")
                    try await stage.wait(for: "the server to recover") { recovered.value == true }
                }
            } else {
                stage.say("Tapping “Reload” (automatic in this mode; --interactive lets you press r)")
            }
            guard
                let prompt = screen.masks.first(where: { $0 is Headless.ReloadView }) as? Headless.ReloadView
            else {
                throw DemoFailure("no reload prompt to tap")
            }
            stage.code("reloadView.reload()")
            prompt.reload()
            try stage.check(!screen.masks.contains { $0 is any ReloadMask }, "the prompt left at the tap")
            // The mask's begin() runs again before the new attempt is even built.
            try await stage.wait(for: "the loading mask to come back") {
                screen.masks.contains { $0 is Headless.MaskView }
            }
            try stage.check(
                attempts.value?.count == seen, "the loading mask is back while the request is sent again")
            let before = seen
            try await stage.wait(for: "the re-sent request to end") { (attempts.value?.count ?? 0) > before }
            seen += 1
            if let again = attempts.value?.last?.error {
                guard stage.options.mode == .interactive else {
                    throw DemoFailure("the re-sent request failed although the server is back: \(again)")
                }
                try stage.check(
                    again.isNetworkFailure && screen.masks.first is Headless.ReloadView,
                    "still down: the prompt is back (\(again.userMessage))")
            }
        }
        try stage.check(attempts.value?.last?.value != nil, "attempt \(seen) succeeded: \(screen.content)")
        try stage.check(screen.masks.isEmpty, "the screen is clear: no mask, no prompt")
        try stage.check(success.presentedMessages == ["Headlines updated"], "inform ran for the new attempt")
        withExtendedLifetime(news) {}
        await stage.pause(1)
    }
}
