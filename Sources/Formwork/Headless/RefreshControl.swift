extension Headless {
    /// A pull-to-refresh control (UIKit's `UIRefreshControl`), and a ``Loadable`` without a mask:
    /// `request(form).load(refreshControl)`.
    ///
    /// It refreshes while any of its loads runs and stops when the **last** overlapping load
    /// ends (MBNetwork stopped on the first).
    @MainActor
    public final class RefreshControl: View, Loadable {
        /// `true` while it shows that it refreshes.
        public private(set) var isRefreshing = false {
            didSet { if isRefreshing != oldValue { setNeedsDisplay() } }
        }
        /// How many of its loads are running.
        public private(set) var activeLoads = 0

        /// Creates a control that is not refreshing.
        override public init() {
            super.init()
        }

        /// Shows refreshing, as a user's pull does.
        func beginRefreshing() { isRefreshing = true }

        /// Stops showing refreshing (loads call this for you when the last one ends).
        func endRefreshing() { isRefreshing = false }

        /// No mask: the control itself shows the loading.
        /// - Returns: `nil`.
        public func mask() -> (any Maskable)? { nil }

        /// A load begins: refreshing.
        public func begin() {
            activeLoads += 1
            beginRefreshing()
        }

        /// A load ends: stops refreshing when it was the last one.
        public func end() {
            guard activeLoads > 0 else { return }
            activeLoads -= 1
            if activeLoads == 0 { endRefreshing() }
        }
    }
}
