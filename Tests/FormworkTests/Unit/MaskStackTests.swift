import Testing

@testable import Formwork

@Suite("Masks stack the MBNetwork way")
@MainActor
struct MaskStackTests {
    @Test("One load: a visible MaskView while it runs, nothing after")
    func singleLoad() {
        let view = Headless.View()
        let load = LoadType.default(container: view)
        load.begin()
        #expect(view.masks.count == 1)
        #expect(view.masks.first is Headless.MaskView)
        #expect(visibility(view) == [true])
        #expect(view.subviews.count == 1)
        #expect(view.subviews.first?.superview === view)
        load.end()
        #expect(view.masks.isEmpty)
        #expect(view.subviews.isEmpty)
    }

    @Test("Three loads: the first mask shows, later ones wait hidden; the visible one leaves last")
    func threeLoads() {
        let view = Headless.View()
        let loads = (0..<3).map { _ in LoadType.default(container: view) }
        for load in loads { load.begin() }
        let first = view.masks[0]
        #expect(visibility(view) == [true, false, false])
        // Ends come in any order; each removes the newest mask, so the shown one stays.
        loads[0].end()
        #expect(visibility(view) == [true, false])
        #expect(view.masks[0] === first)
        loads[2].end()
        #expect(visibility(view) == [true])
        #expect(view.masks[0] === first)
        loads[1].end()
        #expect(view.masks.isEmpty)
    }

    @Test("Different loadables on one container share the stack")
    func mixedLoadables() {
        let screen = Screen()
        let full = LoadType.default(container: screen)
        let spinner = IndicatorLoad(container: screen)
        full.begin()
        spinner.begin()
        #expect(screen.view.masks.map { type(of: $0) is Headless.ActivityIndicator.Type } == [false, true])
        #expect(visibility(screen.view) == [true, false])
        let indicator = try? #require(screen.view.masks.last as? Headless.ActivityIndicator)
        #expect(indicator?.insets == MaskInsets(top: 8, left: 4, bottom: 8, right: 4))
        full.end()
        #expect(visibility(screen.view) == [true])
        spinner.end()
        #expect(screen.view.masks.isEmpty)
    }

    @Test("LoadType.none and loads without a mask leave other masks alone")
    func noMask() {
        let view = Headless.View()
        let none = LoadType.none
        none.begin()
        none.end()
        #expect(view.masks.isEmpty)
        let real = LoadType.default(container: view)
        real.begin()
        let maskless = MasklessLoad(container: view)
        maskless.begin()
        maskless.end()
        #expect(visibility(view) == [true])
        real.end()
        #expect(view.masks.isEmpty)
    }

    @Test("A reload prompt on the container neither hides a load mask nor is removed by a load")
    func reloadPromptIsNotALoadMask() {
        let view = Headless.View()
        let prompt = Headless.ReloadView()
        view.add(prompt, insets: .zero)
        let load = LoadType.default(container: view)
        load.begin()
        #expect(visibility(view) == [true, true])
        load.end()
        #expect(view.masks.count == 1)
        #expect(view.masks.first === prompt)
    }

    @Test("A table cell's masks go on its content view, as a wheel")
    func tableCell() {
        let cell = Headless.TableViewCell()
        cell.begin()
        #expect(cell.masks.isEmpty)
        #expect(cell.contentView.masks.first is Headless.ActivityIndicator)
        cell.end()
        #expect(cell.contentView.masks.isEmpty)
    }

    @Test("A view reports changes below it to its own onChange")
    func changesBubble() {
        let root = Headless.View()
        let child = Headless.View()
        root.addSubview(child)
        let changes = EventCounter()
        root.onChange = { changes.increment() }
        let load = LoadType.default(container: child)
        load.begin()
        #expect(changes.value == 1)
        child.masks.first?.isHidden = true
        #expect(changes.value == 2)
        load.end()
        #expect(changes.value == 3)
    }

    @Test("Subviews move between superviews; removing a mask view by hand also drops it from masks")
    func subviewBookkeeping() {
        let first = Headless.View()
        let second = Headless.View()
        let child = Headless.View()
        first.addSubview(child)
        second.addSubview(child)
        #expect(first.subviews.isEmpty)
        #expect(child.superview === second)
        let mask = Headless.MaskView(text: "Loading…")
        second.add(mask, insets: .zero)
        #expect(second.masks.count == 1)
        mask.removeFromSuperview()
        #expect(second.masks.isEmpty)
        #expect(second.subviews.count == 1)
    }
}
