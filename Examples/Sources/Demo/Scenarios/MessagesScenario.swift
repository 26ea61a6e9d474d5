import Formwork
import Foundation

/// Scenario 6, MBNetwork's "出错提示" and "成功提示": `.warn` shows the server's own message for a
/// business error, a short sentence for an HTTP error or a network error; `.inform` shows a
/// success message only when the server says it worked.
@MainActor
final class MessagesScenario: Scenario, Requestable {
    let title = "Alerts: warn and inform"
    let summary = ".warn shows business, HTTP and network errors; .inform shows a success message."

    func run(on stage: Stage) async throws {
        let warning = Headless.Alert()
        let success = Headless.Alert(message: "Weather updated")
        stage.board.show(
            AlertWidget("Warning", alert: warning, style: .red),
            AlertWidget("Success", alert: success, style: .green))
        await stage.pause(1)

        stage.say("A business error: HTTP 200, but {\"code\": 1001, \"msg\": \"Insufficient balance\"}")
        stage.code("request(PayForm()).warn(APIError.self, with: warningAlert)")
        let business = PathForm(
            base: stage.base, path: "/business-error",
            parameters: ["code": 1001, "msg": "Insufficient balance"])
        _ = await request(business).warn(APIError.self, with: warning).finished()
        try stage.check(
            warning.presentedMessages.last == "Insufficient balance", "the alert shows the server's message")
        await stage.pause(1.2)

        stage.say("MBNetwork's WeatherError: the code at data.code, here \"404\" with \"City not found\"")
        stage.code(
            "request(WeatherForm(city: \"atlantis\"))", "    .warn(WeatherError.self, with: warningAlert)",
            "    .inform(WeatherError.self, with: successAlert)")
        _ = await request(WeatherForm(base: stage.base, city: "atlantis"))
            .warn(WeatherError.self, with: warning)
            .inform(WeatherError.self, with: success)
            .finished()
        try stage.check(
            warning.presentedMessages.last == "City not found" && success.presentedMessages.isEmpty,
            "the alert shows \"City not found\", and no success message")
        await stage.pause(1.2)

        stage.say("An HTTP error: 503 with a plain-text body")
        stage.code("request(ReportForm()).warn(APIError.self, with: warningAlert)")
        let unavailable = await request(PathForm(base: stage.base, path: "/text-error"))
            .warn(APIError.self, with: warning)
            .finished()
        try stage.check(
            unavailable.error?.statusCode == 503
                && warning.presentedMessages.last == unavailable.error?.userMessage,
            "the alert shows the status message: \(unavailable.error?.userMessage ?? "none")")
        await stage.pause(1.2)

        stage.say("A network error: the server resets the connection")
        stage.code("request(SyncForm()).warn(APIError.self, with: warningAlert)")
        let reset = await request(PathForm(base: stage.base, path: "/fault/reset"))
            .warn(APIError.self, with: warning)
            .finished()
        try stage.check(
            reset.error?.isNetworkFailure == true
                && warning.presentedMessages.last == reset.error?.userMessage,
            "the alert shows a short sentence: \(reset.error?.userMessage ?? "none")")
        await stage.pause(1.2)

        stage.say("Success: HTTP 200 with data.code \"200\"")
        stage.code(
            "request(WeatherForm(city: \"shanghai\"))",
            "    .warn(WeatherError.self, with: warningAlert, onSuccess: { error in … })",
            "    .inform(WeatherError.self, with: successAlert)   // Alert(message: \"Weather updated\")")
        let successCode = Probe<String?>()
        _ = await request(WeatherForm(base: stage.base, city: "shanghai"))
            .warn(WeatherError.self, with: warning, onSuccess: { error in successCode.value = error.code })
            .inform(WeatherError.self, with: success)
            .finished()
        try stage.check(
            success.presentedMessages == ["Weather updated"], "the success alert shows \"Weather updated\"")
        try stage.check(
            successCode.value == "200" && warning.presentedMessages.count == 4,
            "warn called onSuccess with code 200 and showed nothing new")
        await stage.pause(1)
    }
}
