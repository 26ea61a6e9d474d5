import Formwork
import Foundation

/// Scenario 2: several requests mask the same screen. The MBNetwork stacking rule: the first
/// mask shows, later ones wait hidden behind it, each end removes the newest, and the visible one
/// leaves with the last request. A second screen is masked independently.
@MainActor
final class StackedMasksScenario: Scenario, Requestable {
    let title = "Masks stack: three requests on one screen, one on another"
    let summary = "Each request adds a mask and only the first shows; each end removes the newest mask."

    /// The masks of both screens at one change.
    private struct Snapshot: Equatable {
        var home: Int
        var homeShown: Int
        var firstShown: Bool
        var profile: Int
        var profileShown: Int
    }

    func run(on stage: Stage) async throws {
        let home = Screen("Home", content: "(3 requests to make)")
        let profile = Screen("Profile", content: "(1 request to make)")
        stage.board.show(ContainerWidget(home), ContainerWidget(profile))
        var history: [Snapshot] = []
        stage.hub.observer = {
            let snapshot = Snapshot(
                home: home.masks.count, homeShown: home.masks.filter { !$0.isHidden }.count,
                firstShown: home.masks.first?.isHidden == false,
                profile: profile.masks.count, profileShown: profile.masks.filter { !$0.isHidden }.count)
            if history.last != snapshot { history.append(snapshot) }
        }
        stage.hub.observer?()
        await stage.pause(1)

        var probes: [Probe<Void>] = []
        var answered = 0
        for (index, milliseconds) in [2000, 3000, 4000].enumerated() {
            let delay = stage.delay(milliseconds)
            stage.code("request(SlowForm(ms: \(delay))).load(LoadType.default(container: home))")
            let slow = request(SlowForm(base: stage.base, milliseconds: delay))
                .load(LoadType.default(container: home))
            probes.append(
                stage.probe(slow) { _ in
                    answered += 1
                    home.content = "\(answered) of 3 requests answered"
                })
            if index == 0 {
                await stage.pause(0.25)
                stage.code(
                    "request(SlowForm(ms: \(stage.delay(2600)))).load(LoadType.default(container: profile))")
                let other = request(SlowForm(base: stage.base, milliseconds: stage.delay(2600)))
                    .load(LoadType.default(container: profile))
                probes.append(stage.probe(other) { _ in profile.content = "answered" })
                await stage.pause(0.25)
            } else {
                await stage.pause(0.5)
            }
        }
        try stage.check(
            home.masks.count == 3 && home.masks.filter { !$0.isHidden }.count == 1
                && home.masks[0].isHidden == false,
            "Home holds 3 masks: #1 shown, #2 and #3 hidden behind it")
        try stage.check(
            profile.masks.count == 1 && profile.masks[0].isHidden == false, "Profile has its own mask, shown")

        for (index, probe) in probes.enumerated() {
            _ = try await stage.value(of: probe, "request \(index + 1) of 4 to end")
        }
        try stage.check(
            home.masks.isEmpty && profile.masks.isEmpty, "both screens are clear once all requests ended")
        let homeCounts = history.map(\.home).reduce(into: [Int]()) { if $0.last != $1 { $0.append($1) } }
        try stage.check(
            homeCounts == [0, 1, 2, 3, 2, 1, 0],
            "Home went 0 → 1 → 2 → 3 → 2 → 1 → 0 masks (saw \(homeCounts))")
        try stage.check(
            history.allSatisfy { $0.home == 0 || ($0.homeShown == 1 && $0.firstShown) },
            "while Home was loading, exactly one mask showed, always #1 (\(history.count) changes)")
        try stage.check(
            history.contains { $0.profile == 0 && $0.home > 0 } && history.allSatisfy { $0.profile <= 1 },
            "Profile cleared while Home was still loading: containers stack independently")
        await stage.pause(1)
    }
}
