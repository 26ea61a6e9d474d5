/// The scroll views whose scrolling loads turned off, and the host whose masks keep them off.
///
/// A scroll view is locked when a load on it begins and unlocked when its host has no load mask
/// left, whichever load removed the last one; it then gets back the `isScrollEnabled` it had.
@MainActor
enum ScrollLocks {
    private struct Lock {
        weak var scrollView: (any ScrollContainable)?
        weak var host: (any MaskHost)?
        let wasEnabled: Bool
    }

    private static var locks: [ObjectIdentifier: Lock] = [:]

    /// Disables scrolling on `scrollView` until `host` has no load mask left.
    static func lock(_ scrollView: any ScrollContainable, hostedBy host: any MaskHost) {
        prune()
        let key = ObjectIdentifier(scrollView)
        let wasEnabled = locks[key]?.wasEnabled ?? scrollView.isScrollEnabled
        locks[key] = Lock(scrollView: scrollView, host: host, wasEnabled: wasEnabled)
        scrollView.isScrollEnabled = false
    }

    /// Gives scrolling back to every scroll view locked on `host`.
    static func unlock(hostedBy host: any MaskHost) {
        for (key, lock) in locks where lock.host === host {
            locks[key] = nil
            lock.scrollView?.isScrollEnabled = lock.wasEnabled
        }
        prune()
    }

    /// `true` while a load keeps `scrollView` from scrolling.
    static func isLocked(_ scrollView: any ScrollContainable) -> Bool {
        locks[ObjectIdentifier(scrollView)]?.scrollView != nil
    }

    /// Forgets locks whose scroll view or host is gone.
    private static func prune() {
        locks = locks.filter { $0.value.scrollView != nil && $0.value.host != nil }
    }
}
