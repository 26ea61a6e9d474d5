extension Headless {
    /// A view that scrolls (UIKit's `UIScrollView`).
    ///
    /// Masks put on it go on its nearest ancestor that is not a scroll view, where they stay
    /// put while the content moves. While a load masks it, ``isScrollEnabled`` is `false`; it
    /// gets its old value back when the last load mask on that ancestor goes.
    @MainActor
    public final class ScrollView: View, ScrollContainable {
        /// Whether the user can scroll.
        public var isScrollEnabled = true {
            didSet { if isScrollEnabled != oldValue { setNeedsDisplay() } }
        }

        /// Creates a scroll view that scrolls.
        override public init() {
            super.init()
        }

        /// The nearest ancestor that is not a scroll view, or `nil` when there is none.
        /// - Returns: That ancestor's host.
        override public func containerView() -> (any MaskHost)? {
            var next = superview
            while let view = next {
                if !(view is ScrollView) { return view }
                next = view.superview
            }
            return nil
        }
    }
}
