extension Headless {
    /// A spinning wheel used as a mask (UIKit's `UIActivityIndicatorView`): what a button or a
    /// table cell shows while it loads.
    @MainActor
    public final class ActivityIndicator: View, Maskable {
        /// What kind of mask this is.
        public let maskID: String
        /// The colour of the wheel.
        public var color: Color {
            didSet { if color != oldValue { setNeedsDisplay() } }
        }
        /// `true` while the wheel turns.
        public var isAnimating = true {
            didSet { if isAnimating != oldValue { setNeedsDisplay() } }
        }

        /// The default ``maskID``.
        public static let defaultMaskID = "Formwork.ActivityIndicator"

        /// Creates a turning wheel.
        /// - Parameters:
        ///   - color: The wheel's colour; defaults to grey.
        ///   - backgroundColor: The colour behind it; defaults to none.
        ///   - maskID: What kind of mask this is.
        public init(color: Color = .gray, backgroundColor: Color? = nil, maskID: String = defaultMaskID) {
            self.color = color
            self.maskID = maskID
            super.init()
            self.backgroundColor = backgroundColor
        }
    }
}
