extension Headless {
    /// A table row (UIKit's `UITableViewCell`), and a ``Loadable`` for itself:
    /// `request(form).load(cell)` shows a wheel on the cell's ``contentView``.
    @MainActor
    public final class TableViewCell: View, Loadable {
        /// The view that holds the cell's content and its masks.
        public let contentView = View()

        /// Creates a cell with an empty content view.
        override public init() {
            super.init()
            addSubview(contentView)
        }

        /// Masks put on a cell go on its content view.
        /// - Returns: ``contentView``.
        override public func containerView() -> (any MaskHost)? { contentView }

        /// A wheel.
        /// - Returns: A new ``ActivityIndicator``.
        public func mask() -> (any Maskable)? { ActivityIndicator() }

        /// The cell itself (so the wheel goes on its content view).
        /// - Returns: `self`.
        public func maskContainer() -> (any Containable)? { self }
    }
}
