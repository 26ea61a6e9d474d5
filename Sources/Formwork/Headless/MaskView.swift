extension Headless {
    /// The default loading mask: a dimmed cover with a spinner and an optional line of text, in
    /// the style of MBProgressHUD.
    @MainActor
    public final class MaskView: View, Maskable {
        /// What kind of mask this is.
        public let maskID: String
        /// A line shown under the spinner, e.g. "Loading…"; `nil` for none.
        public var text: String? {
            didSet { if text != oldValue { setNeedsDisplay() } }
        }

        /// The default ``maskID``.
        static let defaultMaskID = "Formwork.MaskView"

        /// Creates a mask.
        /// - Parameters:
        ///   - text: A line shown under the spinner; defaults to none.
        ///   - maskID: What kind of mask this is.
        public init(text: String? = nil, maskID: String = "Formwork.MaskView") {
            self.text = text
            self.maskID = maskID
            super.init()
            backgroundColor = Color(red: 0, green: 0, blue: 0, alpha: 0.4)
        }
    }
}
