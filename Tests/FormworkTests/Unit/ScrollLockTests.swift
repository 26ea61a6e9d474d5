import Testing

@testable import Formwork

@Suite("Scroll views: masks on the nearest non-scroll ancestor, scrolling locked while masked")
@MainActor
struct ScrollLockTests {
    /// root > outer scroll > inner scroll
    private func nested() -> (Headless.View, Headless.ScrollView, Headless.ScrollView) {
        let root = Headless.View()
        let outer = Headless.ScrollView()
        let inner = Headless.ScrollView()
        root.addSubview(outer)
        outer.addSubview(inner)
        return (root, outer, inner)
    }

    @Test("A load on a nested scroll view masks the nearest non-scroll ancestor and locks scrolling")
    func lockAndUnlock() {
        let (root, outer, inner) = nested()
        let load = LoadType.default(container: inner)
        load.begin()
        #expect(root.masks.count == 1)
        #expect(outer.masks.isEmpty)
        #expect(inner.masks.isEmpty)
        #expect(!inner.isScrollEnabled)
        #expect(outer.isScrollEnabled)
        load.end()
        #expect(root.masks.isEmpty)
        #expect(inner.isScrollEnabled)
    }

    @Test("Overlapping loads: scrolling comes back only when the last mask goes")
    func overlapping() {
        let (root, _, scroll) = nested()
        let loads = [LoadType.default(container: scroll), LoadType.default(container: scroll)]
        for load in loads { load.begin() }
        loads[0].end()
        #expect(!scroll.isScrollEnabled)
        #expect(visibility(root) == [true])
        loads[1].end()
        #expect(scroll.isScrollEnabled)
    }

    @Test("When another load on the ancestor removes the last mask, the scroll view unlocks too")
    func unlockedByAnotherLoad() {
        let (root, _, scroll) = nested()
        let onScroll = LoadType.default(container: scroll)
        let onRoot = LoadType.default(container: root)
        onScroll.begin()
        onRoot.begin()
        onScroll.end()
        #expect(!scroll.isScrollEnabled)
        onRoot.end()
        #expect(root.masks.isEmpty)
        #expect(scroll.isScrollEnabled)
    }

    @Test("A scroll view the app had disabled stays disabled")
    func keepsAppSetting() {
        let (_, _, scroll) = nested()
        scroll.isScrollEnabled = false
        let load = LoadType.default(container: scroll)
        load.begin()
        load.end()
        #expect(!scroll.isScrollEnabled)
    }

    @Test("A scroll view without a non-scroll ancestor gets no mask and keeps scrolling")
    func noAncestor() {
        let scroll = Headless.ScrollView()
        let load = LoadType.default(container: scroll)
        load.begin()
        #expect(scroll.masks.isEmpty)
        #expect(scroll.isScrollEnabled)
        load.end()
        #expect(scroll.isScrollEnabled)
    }
}
