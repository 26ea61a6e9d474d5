extension Headless {
    /// An alert (UIKit's `UIAlertController`) that warns with the error's message and informs
    /// with its own ``message``. It records what it presented, in order.
    ///
    /// ```swift
    /// request(SubmitForm())
    ///     .warn(APIError.self, with: Headless.Alert())
    ///     .inform(APIError.self, with: Headless.Alert(message: "Saved"))
    /// ```
    @MainActor
    public final class Alert: Warnable, Informable {
        /// The text shown by ``show()`` (the success message).
        public var message: String
        /// Every message presented so far, oldest first.
        public private(set) var presentedMessages: [String] = []
        /// Called after each presentation.
        public var onChange: (@MainActor () -> Void)?

        /// Creates an alert.
        /// - Parameter message: The text ``show()`` presents; defaults to empty.
        public init(message: String = "") {
            self.message = message
        }

        /// Presents ``message``.
        public func show() {
            present(message)
        }

        /// Presents the error's message; does nothing when it has none.
        /// - Parameter error: The error to show.
        public func show(error: (any Errorable)?) {
            guard let text = error?.message, !text.isEmpty else { return }
            present(text)
        }

        private func present(_ text: String) {
            presentedMessages.append(text)
            onChange?()
        }
    }
}
