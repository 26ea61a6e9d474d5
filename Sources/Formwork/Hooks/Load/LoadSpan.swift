/// One `load` on a stream or a socket: `end()` runs once for each `begin()`, and a `begin()` while
/// one is open (a reconnection before the first item, or before the socket opened) is not counted
/// twice, so the loading UI it shows is never left behind.
@MainActor
final class LoadSpan {
    private let onBegin: @MainActor @Sendable () -> Void
    private let onEnd: @MainActor @Sendable () -> Void
    private var isOpen = false

    init(begin: @escaping @MainActor @Sendable () -> Void, end: @escaping @MainActor @Sendable () -> Void) {
        onBegin = begin
        onEnd = end
    }

    func begin() {
        guard !isOpen else { return }
        isOpen = true
        onBegin()
    }

    func end() {
        guard isOpen else { return }
        isOpen = false
        onEnd()
    }
}
