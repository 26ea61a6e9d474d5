import Formwork
import Foundation

/// Scenario 3, MBNetwork's "common controls": a button disabled with a wheel while it submits, a
/// scroll view that cannot scroll while masked (its mask goes on the screen around it), a table
/// cell with a wheel, and a pull-to-refresh that stays refreshing until its last request ends.
@MainActor
final class ControlsScenario: Scenario, Requestable {
    let title = "A button, a scroll view, a table cell and pull-to-refresh"
    let summary =
        "A button disabled with a wheel, a scroll view locked while masked, refreshing to the last request."

    func run(on stage: Stage) async throws {
        let screen = Screen("Articles", content: "10 articles")
        let list = Headless.ScrollView()
        let refresh = Headless.RefreshControl()
        let cell = Headless.TableViewCell()
        let submit = Headless.Control()
        screen.addSubview(list)
        list.addSubview(refresh)
        list.addSubview(cell)
        screen.addSubview(submit)
        stage.board.show(
            ContainerWidget(screen), ScrollWidget("List", scrollView: list), RefreshWidget(refresh),
            ContainerWidget("Row 3", view: cell.contentView) { "“Protocols all the way down”" },
            ControlWidget("Submit", control: submit))
        await stage.pause(1)

        stage.code("request(SubmitForm()).load(submitButton)")
        let submitting = request(SlowForm(base: stage.base, milliseconds: stage.delay(2500))).load(submit)
        let afterSubmit = stage.probe(submitting) { _ in (submit.isEnabled, submit.masks.count) }
        try stage.check(
            !submit.isEnabled && submit.masks.first is Headless.ActivityIndicator,
            "the button is disabled and shows an ActivityIndicator")
        await stage.pause(0.6)

        stage.code("request(ArticlesForm()).load(LoadType.default(container: list))")
        let loading = request(SlowForm(base: stage.base, milliseconds: stage.delay(3000)))
            .load(LoadType.default(container: list))
        let afterList = stage.probe(loading) { _ in (list.isScrollEnabled, screen.masks.count) }
        try stage.check(
            !list.isScrollEnabled && screen.masks.count == 1 && list.masks.isEmpty,
            "the list cannot scroll; its mask went on the screen, the nearest view that does not scroll")
        await stage.pause(0.6)

        stage.code(
            "request(ArticlesForm()).load(refreshControl)", "request(BannersForm()).load(refreshControl)")
        let first = request(SlowForm(base: stage.base, milliseconds: stage.delay(1500))).load(refresh)
        let second = request(SlowForm(base: stage.base, milliseconds: stage.delay(3500))).load(refresh)
        let afterFirst = stage.probe(first) { _ in refresh.isRefreshing }
        let afterSecond = stage.probe(second) { _ in refresh.isRefreshing }
        try stage.check(
            refresh.isRefreshing && refresh.activeLoads == 2, "pull-to-refresh is refreshing (2 loads)")
        await stage.pause(0.6)

        stage.code("request(ArticleForm(id: 3)).load(cell)")
        let opening = request(SlowForm(base: stage.base, milliseconds: stage.delay(1500))).load(cell)
        let afterCell = stage.probe(opening) { _ in cell.contentView.masks.count }
        try stage.check(
            cell.contentView.masks.first is Headless.ActivityIndicator,
            "the cell shows a wheel on its content view")

        let submitted = try await stage.value(of: afterSubmit, "the submit request to end")
        try stage.check(
            submitted.0 && submitted.1 == 0,
            "the button is enabled again, without its wheel, when its request ends")
        let refreshedOnce = try await stage.value(of: afterFirst, "the first refresh request to end")
        try stage.check(
            refreshedOnce, "still refreshing after the first refresh request ended (MBNetwork stopped here)")
        let opened = try await stage.value(of: afterCell, "the cell's request to end")
        try stage.check(opened == 0, "the cell's wheel left with its request")
        let listed = try await stage.value(of: afterList, "the list request to end")
        try stage.check(listed.0 && listed.1 == 0, "the list scrolls again and the screen is clear")
        let refreshed = try await stage.value(of: afterSecond, "the second refresh request to end")
        try stage.check(!refreshed, "refreshing stopped with the last refresh request")
        await stage.pause(1)
    }
}
