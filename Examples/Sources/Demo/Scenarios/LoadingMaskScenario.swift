import Formwork
import Foundation

/// Scenario 1, MBNetwork's first picture: a mask covers a screen while its request runs, and leaves
/// when the request ends — with data, or with an error. Then MBNetwork's `LoadConfig`: a custom
/// mask with insets.
@MainActor
final class LoadingMaskScenario: Scenario, Requestable {
    let title = "A loading mask on a screen"
    let summary =
        "A MaskView covers the screen from .load until the request ends, with data or with an error."

    /// MBNetwork's advanced load: which mask, where, and how far inside the container's edges.
    struct LoadConfig: Loadable {
        let container: (any Containable)?
        let maskView: any Maskable
        let insets: MaskInsets

        func mask() -> (any Maskable)? { maskView }
        func inset() -> MaskInsets { insets }
        func maskContainer() -> (any Containable)? { container }
    }

    func run(on stage: Stage) async throws {
        // The weather API answers at once on loopback: this session waits before each request,
        // like a slow mobile network, so that the mask stays long enough to be seen.
        let latency = stage.delay(1500)
        let slowNetwork = Session { configuration in
            configuration.interceptors.adapters = [
                Adapter { request in
                    try await Task.sleep(for: .milliseconds(latency))
                    return request
                }
            ]
        }
        let screen = Screen("Weather", content: "(nothing loaded yet)")
        stage.board.show(ContainerWidget(screen))
        stage.say("This session adds \(latency) ms of latency with an adapter, like a slow mobile network.")
        await stage.pause(1)

        stage.code(
            "request(WeatherForm(city: \"shanghai\"))", "    .load(LoadType.default(container: screen))",
            "    .responseDecodable(of: Weather.self, atKeyPath: \"data\") { screen.content = … }")
        let weather = request(WeatherForm(base: stage.base, city: "shanghai"), session: slowNetwork)
            .load(LoadType.default(container: screen))
            .responseDecodable(of: Weather.self, atKeyPath: "data") { response in
                guard let weather = response.value else { return }
                screen.content =
                    "\(weather.city.capitalized): \(weather.temperature) °C, \(weather.condition)"
            }
        try stage.check(
            screen.masks.count == 1 && screen.masks.first is Headless.MaskView
                && screen.masks.first?.isHidden == false,
            "a MaskView covers the screen as soon as .load is chained")
        let response = await weather.finished()
        try stage.check(
            response.error == nil && screen.content.hasPrefix("Shanghai"),
            "the weather arrived: \(screen.content)")
        try stage.check(screen.masks.isEmpty, "the mask left when the request ended")
        await stage.pause(1.5)

        stage.say("MBNetwork's LoadConfig: its own mask and insets, on a request that fails.")
        stage.code(
            "let config = LoadConfig(container: screen, maskView: ActivityIndicator(),",
            "                        insets: MaskInsets(top: 94, left: 15, bottom: 120, right: 15))",
            "request(ReportForm()).load(config)   // the server answers 500")
        let config = LoadConfig(
            container: screen, maskView: Headless.ActivityIndicator(),
            insets: MaskInsets(top: 94, left: 15, bottom: 120, right: 15))
        let failing = request(PathForm(base: stage.base, path: "/status/500"), session: slowNetwork).load(
            config)
        try stage.check(
            screen.masks.first is Headless.ActivityIndicator
                && (screen.masks.first as? Headless.View)?.insets == config.insets,
            "the custom mask is on the screen with its insets")
        let failed = await failing.finished()
        try stage.check(
            failed.error?.statusCode == 500 && screen.masks.isEmpty,
            "the mask left when the request failed (500)")
        await stage.pause(1)
    }
}
