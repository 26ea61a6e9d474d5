extension Headless {
    /// A plain view: it has subviews, hosts masks, and is a container and a reload target for
    /// itself (UIKit's `UIView`).
    ///
    /// Masks added with ``add(_:insets:)`` that are views become subviews too, with their
    /// ``insets``. Subclass it for views of your own; override ``containerView()`` to host masks
    /// elsewhere (as ``ScrollView`` and ``TableViewCell`` do).
    @MainActor
    open class View: MaskHost, Containable, Reloadable {
        /// The view this one is a subview of, if any.
        public private(set) weak var superview: View?
        /// The subviews, back to front (masks that are views included).
        private(set) var subviews: [View] = []
        /// The masks this view hosts, oldest first, newest (frontmost) last.
        public private(set) var masks: [any Maskable] = []
        /// `true` while the view is not shown.
        public var isHidden = false {
            didSet { if isHidden != oldValue { setNeedsDisplay() } }
        }
        /// The background colour, `nil` for none.
        var backgroundColor: Color? {
            didSet { if backgroundColor != oldValue { setNeedsDisplay() } }
        }
        /// The distance from the superview's edges when the view was added as a mask.
        public private(set) var insets = MaskInsets.zero
        /// Called after this view or anything below it changed.
        public var onChange: (@MainActor () -> Void)?

        /// Creates an empty, visible view.
        public init() {}

        /// Adds `view` in front of the other subviews, taking it from its old superview.
        /// - Parameter view: The view to add.
        public func addSubview(_ view: View) {
            attach(view)
            setNeedsDisplay()
        }

        /// Takes the view out of its superview (and out of its masks if it is one).
        public func removeFromSuperview() {
            guard let superview = detach() else { return }
            superview.setNeedsDisplay()
        }

        /// Adds a mask in front of everything; a mask that is a view becomes a subview.
        /// - Parameters:
        ///   - mask: The mask.
        ///   - insets: Its distance from this view's edges.
        public func add(_ mask: any Maskable, insets: MaskInsets) {
            masks.removeAll { $0 === mask }
            if let view = mask as? View {
                view.insets = insets
                attach(view)
            }
            masks.append(mask)
            setNeedsDisplay()
        }

        /// Removes a mask; does nothing if this view does not host it.
        /// - Parameter mask: The mask.
        public func remove(_ mask: any Maskable) {
            guard masks.contains(where: { $0 === mask }) else { return }
            masks.removeAll { $0 === mask }
            if let view = mask as? View, view.superview === self {
                view.detach()
            }
            setNeedsDisplay()
        }

        /// Makes `view` the frontmost subview without reporting the change here.
        private func attach(_ view: View) {
            precondition(view !== self, "A view cannot be its own subview")
            view.removeFromSuperview()
            view.superview = self
            subviews.append(view)
        }

        /// Leaves the superview without reporting the change; returns the old superview.
        @discardableResult
        private func detach() -> View? {
            guard let superview else { return nil }
            self.superview = nil
            superview.subviews.removeAll { $0 === self }
            superview.masks.removeAll { $0 === self }
            return superview
        }

        /// The view that hosts masks put on this one: itself.
        /// - Returns: `self`.
        open func containerView() -> (any MaskHost)? { self }

        /// Where a reload prompt for this view goes: on itself.
        /// - Returns: `self`.
        open func reloadContainer() -> (any Containable)? { self }

        /// The reload prompt: a new ``ReloadView``.
        /// - Returns: A new ``ReloadView``.
        open func reloadMask() -> (any ReloadMask)? { ReloadView() }

        /// Reports a change: calls ``onChange`` here, then on each superview up to the root.
        public func setNeedsDisplay() {
            var view: View? = self
            while let current = view {
                current.onChange?()
                view = current.superview
            }
        }
    }
}
