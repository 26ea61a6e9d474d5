extension Headless {
    /// A button or any other control (UIKit's `UIControl`), and a ``Loadable`` for itself:
    /// `request(form).load(button)`.
    ///
    /// While it loads it is disabled and shows an ``ActivityIndicator``. With overlapping loads
    /// it stays disabled until the last one ends, then gets back the ``isEnabled`` it had.
    @MainActor
    public final class Control: View, Loadable {
        /// Whether the control reacts to the user.
        public var isEnabled = true {
            didSet { if isEnabled != oldValue { setNeedsDisplay() } }
        }
        /// The control's accent colour, used for its loading wheel.
        var tintColor = Color.blue {
            didSet { if tintColor != oldValue { setNeedsDisplay() } }
        }
        /// How many of its loads are running.
        public private(set) var activeLoads = 0
        private var wasEnabled = true

        /// Creates an enabled control.
        override public init() {
            super.init()
        }

        /// A wheel in the control's colours.
        /// - Returns: A new ``ActivityIndicator``.
        public func mask() -> (any Maskable)? {
            ActivityIndicator(color: tintColor, backgroundColor: backgroundColor)
        }

        /// The control itself.
        /// - Returns: `self`.
        public func maskContainer() -> (any Containable)? { self }

        /// Disables the control and shows the wheel.
        public func begin() {
            if activeLoads == 0 { wasEnabled = isEnabled }
            activeLoads += 1
            isEnabled = false
            showMask()
        }

        /// Removes a wheel; after the last load, enables the control again (if it was).
        public func end() {
            guard activeLoads > 0 else { return }
            hideMask()
            activeLoads -= 1
            if activeLoads == 0 { isEnabled = wasEnabled }
        }
    }
}
