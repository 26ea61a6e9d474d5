/// Something that shows a transfer's progress: a progress bar, a label, a test recorder.
///
/// Chain it with `.progress(_:)`; it is called on the main actor with updates that never go
/// backwards within an attempt.
@MainActor
public protocol Progressable {
    /// Shows the latest progress.
    /// - Parameter progress: Bytes done and the total, if known.
    func progress(_ progress: TransferProgress)
}
