extension Headless {
    /// A spinning wheel used as a mask (UIKit's `UIActivityIndicatorView`): what a button or a
    /// table cell shows while it loads.
    @MainActor
    public final class ActivityIndicator: View, Maskable {
        /// What kind of mask this is.
        public let maskID: String
        /// The colour of the wheel.
        var color: Color {
            didSet { if color != oldValue { setNeedsDisplay() } }
        }
        /// `true` while the wheel turns.
        var isAnimating = true {
            didSet { if isAnimating != oldValue { setNeedsDisplay() } }
        }

        /// The default ``maskID``.
        static let defaultMaskID = "Formwork.ActivityIndicator"

        /// Creates a turning wheel.
        /// - Parameter maskID: What kind of mask this is.
        public convenience init(maskID: String = "Formwork.ActivityIndicator") {
            self.init(color: .gray, backgroundColor: nil, maskID: maskID)
        }

        /// Creates a turning wheel in the given colours (a control's own).
        init(color: Color, backgroundColor: Color?, maskID: String = defaultMaskID) {
            self.color = color
            self.maskID = maskID
            super.init()
            self.backgroundColor = backgroundColor
        }
    }
}
