extension Headless {
    /// The default reload prompt: "Tap to reload" over a container whose request failed for want
    /// of a network. ``ReloadMask/reload()`` (a tap) sends the request again.
    @MainActor
    public final class ReloadView: View, ReloadMask {
        /// What kind of mask this is.
        public let maskID: String
        /// The prompt shown to the user.
        public var message: String {
            didSet { if message != oldValue { setNeedsDisplay() } }
        }
        /// What a tap does; set by `.reload(on:)`.
        public var onReload: (@MainActor () -> Void)?

        /// The default ``maskID``.
        static let defaultMaskID = "Formwork.ReloadView"

        /// Creates a reload prompt.
        /// - Parameters:
        ///   - message: The prompt; defaults to "Network unavailable. Tap to reload."
        ///   - maskID: What kind of mask this is.
        public init(
            message: String = "Network unavailable. Tap to reload.", maskID: String = "Formwork.ReloadView"
        ) {
            self.message = message
            self.maskID = maskID
            super.init()
        }
    }
}
