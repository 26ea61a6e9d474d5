// Declarations of the fixture's own that are newer than its floor, as Formwork's `RequestModel`
// (iOS 17 / macOS 14) is. Using one without a guard fails an Apple build just like using a
// toolchain API: the gate must report each unguarded use below, and none of the guarded ones.

@available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
final class LiveModel<Value> {
    var value: Value?
    init() {}
    func end() {}
}

@available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
protocol LiveFeed {}

struct Screen {
    init() {}

    @available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
    func observe() {}
}

@available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
extension Screen {
    func refresh() {}
}

// Unguarded: each line names an iOS 17 declaration of ours.
enum LiveReader {
    static func read(into model: LiveModel<Int>) {}
}

struct LiveHolder {
    weak var model: LiveModel<String>?
}

func feed<Source: LiveFeed>(_ source: Source) {}

func show(_ screen: Screen) {
    screen.observe()
    screen.refresh()
}

struct Ticker: LiveFeed {}

// Guarded: none of these may be reported.
@available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
enum GuardedLiveReader {
    static func read(into model: LiveModel<Int>) {
        model.end()
    }
}

@available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
extension LiveModel: LiveFeed {}

func checkedShow(_ screen: Screen) {
    if #available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *) {
        screen.observe()
        LiveModel<Int>().end()
    }
}
