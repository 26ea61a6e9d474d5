extension Headless {
    /// A progress bar (UIKit's `UIProgressView`) for `.progress(_:)`.
    @MainActor
    public final class ProgressView: View, Progressable {
        /// The latest update, `nil` before the first.
        public private(set) var latestProgress: TransferProgress?

        /// The fraction done, 0...1, or `nil` when nothing arrived yet or the total is unknown.
        public var fractionCompleted: Double? { latestProgress?.fractionCompleted }

        /// Creates an empty bar.
        override public init() {
            super.init()
        }

        /// Shows an update.
        /// - Parameter progress: Bytes done and the total, if known.
        public func progress(_ progress: TransferProgress) {
            guard progress != latestProgress else { return }
            latestProgress = progress
            setNeedsDisplay()
        }
    }
}
