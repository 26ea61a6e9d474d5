import Testing

@testable import Formwork

@Suite("Controls and refresh controls as loadables")
@MainActor
struct ControlTests {
    @Test("A control is disabled and shows a wheel in its own colours while it loads")
    func control() throws {
        let button = Headless.Control()
        button.tintColor = .white
        button.backgroundColor = .black
        button.begin()
        #expect(!button.isEnabled)
        let wheel = try #require(button.masks.first as? Headless.ActivityIndicator)
        #expect(wheel.color == .white)
        #expect(wheel.backgroundColor == .black)
        #expect(!wheel.isHidden)
        button.end()
        #expect(button.isEnabled)
        #expect(button.masks.isEmpty)
    }

    @Test("Overlapping loads keep a control disabled until the last ends")
    func overlapping() {
        let button = Headless.Control()
        button.begin()
        button.begin()
        #expect(visibility(button) == [true, false])
        button.end()
        #expect(!button.isEnabled)
        #expect(button.activeLoads == 1)
        button.end()
        #expect(button.isEnabled)
        #expect(button.masks.isEmpty)
        button.end()  // an extra end is ignored
        #expect(button.isEnabled)
    }

    @Test("A control the app had disabled stays disabled after loading")
    func keepsDisabled() {
        let button = Headless.Control()
        button.isEnabled = false
        button.begin()
        button.end()
        #expect(!button.isEnabled)
    }

    @Test("A refresh control refreshes until its last overlapping load ends, with no mask")
    func refreshControl() {
        let root = Headless.View()
        let refresh = Headless.RefreshControl()
        root.addSubview(refresh)
        refresh.begin()
        refresh.begin()
        #expect(refresh.isRefreshing)
        refresh.end()
        #expect(refresh.isRefreshing)
        refresh.end()
        #expect(!refresh.isRefreshing)
        #expect(root.masks.isEmpty)
        #expect(refresh.masks.isEmpty)
    }

    @Test("A progress view shows the latest fraction, nil while unknown")
    func progressView() {
        let bar = Headless.ProgressView()
        let changes = EventCounter()
        bar.onChange = { changes.increment() }
        #expect(bar.fractionCompleted == nil)
        bar.progress(TransferProgress(completedBytes: 5, totalBytes: nil))
        #expect(bar.fractionCompleted == nil)
        bar.progress(TransferProgress(completedBytes: 25, totalBytes: 100))
        #expect(bar.fractionCompleted == 0.25)
        bar.progress(TransferProgress(completedBytes: 25, totalBytes: 100))
        #expect(changes.value == 2)
    }

    @Test("An alert presents warnings and its own message in order, and skips empty ones")
    func alert() {
        let alert = Headless.Alert(message: "Saved")
        alert.show(error: "No network")
        alert.show(error: nil)
        alert.show(error: "")
        alert.show()
        alert.show(error: WeatherError(code: "500", message: "Broken"))
        #expect(alert.presentedMessages == ["No network", "Saved", "Broken"])
    }

    @Test("A reload prompt runs its action once per reload()")
    func reloadView() {
        let prompt = Headless.ReloadView()
        let taps = EventCounter()
        prompt.reload()
        prompt.onReload = { taps.increment() }
        prompt.reload()
        #expect(taps.value == 1)
    }
}
