import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

@Suite("Load hook against the demo server", .timeLimit(.minutes(5)))
@MainActor
struct LoadHookTests {
    let client = Client()

    private func slow(_ milliseconds: Int) async throws -> TestForm {
        TestForm(url: try await DemoServer.url("/slow?ms=\(milliseconds)"))
    }

    @Test("Three overlapping loads on one screen: first mask shown, others hidden, shown one leaves last")
    func stacking() async throws {
        let screen = Screen()
        let forms = [try await slow(100), try await slow(400), try await slow(700)]
        let ended = EventCounter()
        let snapshots = Recorder<[Bool]>()
        let fronts = Recorder<ObjectIdentifier?>()
        for form in forms {
            let load = ObservedLoad(base: LoadType.default(container: screen)) {
                snapshots.record(visibility(screen.view))
                fronts.record(screen.view.masks.first.map(ObjectIdentifier.init))
            }
            client.request(form).load(load).response { _ in ended.increment() }
        }
        #expect(visibility(screen.view) == [true, false, false])
        let first = ObjectIdentifier(try #require(screen.view.masks.first))
        await ended.wait(for: 3)
        // Whichever request ends first, the shown mask is the first one and it leaves last.
        #expect(snapshots.values == [[true, false], [true], []])
        #expect(fronts.values == [first, first, nil])
        #expect(screen.view.subviews.isEmpty)
    }

    @Test(
        "end() runs exactly once per attempt, however it ends",
        arguments: ["success", "status", "transport", "cancel"])
    func endOnce(ending: String) async throws {
        let form: TestForm
        switch ending {
        case "success": form = TestForm(url: try await DemoServer.url("/weather?city=x"))
        case "status": form = TestForm(url: try await DemoServer.url("/status/500"))
        case "transport": form = TestForm(url: "http://127.0.0.1:\(try UnusedPort.find())/nothing")
        default: form = try await slow(8000)
        }
        let log = EventLog()
        let screen = Screen()
        let done = EventCounter()
        let request = client.request(form)
            .load(RecordingLoad(name: "load", log: log, container: screen))
            .response { _ in
                log.record("handler")
                done.increment()
            }
        #expect(log.events == ["load.begin"])
        #expect(visibility(screen.view) == [true])
        if ending == "cancel" {
            await request.waitUntilRunning()
            request.cancel()
        }
        await done.wait(for: 1)
        // Chained after the end: begins and ends at once, in chain order.
        request.load(RecordingLoad(name: "late", log: log, container: screen)).response { _ in
            done.increment()
        }
        await done.wait(for: 2)
        #expect(log.events == ["load.begin", "load.end", "handler", "late.begin", "late.end"])
        #expect(screen.view.masks.isEmpty)
    }

    @Test(
        "A load on a scroll view masks its non-scroll ancestor and locks scrolling until the last load ends")
    func scrollLock() async throws {
        let screen = Screen()
        let table = Headless.ScrollView()
        screen.view.addSubview(table)
        let forms = [try await slow(100), try await slow(500)]
        let ended = EventCounter()
        let states = Recorder<Bool>()
        for form in forms {
            let load = ObservedLoad(base: LoadType.default(container: table)) {
                states.record(table.isScrollEnabled)
            }
            client.request(form).load(load).response { _ in ended.increment() }
        }
        #expect(!table.isScrollEnabled)
        #expect(table.masks.isEmpty)
        #expect(visibility(screen.view) == [true, false])
        await ended.wait(for: 2)
        #expect(states.values == [false, true])
        #expect(screen.view.masks.isEmpty)
    }

    @Test("A button is disabled with a wheel while its requests run, enabled after the last")
    func control() async throws {
        let button = Headless.Control()
        button.tintColor = .white
        let forms = [try await slow(100), try await slow(500)]
        let ended = EventCounter()
        let states = Recorder<(Bool, Int)>()
        for form in forms {
            let load = ObservedLoad(base: button) { states.record((button.isEnabled, button.masks.count)) }
            client.request(form).load(load).response { _ in ended.increment() }
        }
        #expect(!button.isEnabled)
        #expect((button.masks.first as? Headless.ActivityIndicator)?.color == .white)
        await ended.wait(for: 2)
        #expect(states.values.map(\.0) == [false, true])
        #expect(states.values.map(\.1) == [1, 0])
    }

    @Test("A refresh control keeps refreshing until its last overlapping request ends")
    func refresh() async throws {
        let refresh = Headless.RefreshControl()
        let forms = [try await slow(100), try await slow(500)]
        let ended = EventCounter()
        let states = Recorder<Bool>()
        for form in forms {
            let load = ObservedLoad(base: refresh) { states.record(refresh.isRefreshing) }
            client.request(form).load(load).response { _ in ended.increment() }
        }
        #expect(refresh.isRefreshing)
        await ended.wait(for: 2)
        #expect(states.values == [true, false])
    }

    @Test("A cell shows a wheel on its content view while its request runs")
    func cell() async throws {
        let cell = Headless.TableViewCell()
        let done = EventCounter()
        client.request(try await slow(50)).load(cell).response { _ in done.increment() }
        #expect(cell.contentView.masks.first is Headless.ActivityIndicator)
        await done.wait(for: 1)
        #expect(cell.contentView.masks.isEmpty)
    }
}
