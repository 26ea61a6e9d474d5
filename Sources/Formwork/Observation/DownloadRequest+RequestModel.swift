import Foundation

@available(iOS 17, macOS 14, tvOS 17, watchOS 10, visionOS 1, *)
extension DownloadRequest {
    /// Binds a ``RequestModel`` to a download: loading now, the transfer's progress in
    /// ``RequestModel/fractionCompleted``, then the downloaded file's URL (the form's `destination`) as the
    /// value, or the error and its message.
    ///
    /// ```swift
    /// download(ReportForm(id: 42)).bind(to: report)
    /// ```
    ///
    /// Progress is coalesced like ``Request/progress(_:)`` (at most one change per main-actor turn)
    /// and reaches its final value before the model succeeds. ``RequestModel/reload()`` downloads
    /// again through the same chain (resuming as the form allows); ``RequestModel/cancel()``
    /// stops the download and leaves the model ``RequestModel/Phase/idle``.
    /// - Parameters:
    ///   - model: The model to bind; the request holds it weakly.
    ///   - tracksProgress: `false` to leave ``RequestModel/fractionCompleted`` `nil`.
    /// - Returns: The request.
    @MainActor
    @discardableResult
    public func bind(to model: RequestModel<URL>, tracksProgress: Bool = true) -> Self {
        let destination = self.destination
        return driveModel(model, tracksProgress: tracksProgress) { outcome in
            if let error = outcome.error { return .failure(error) }
            return .success(destination)
        }
    }
}
