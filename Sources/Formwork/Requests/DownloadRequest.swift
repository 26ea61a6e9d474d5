import Foundation

/// A download: the body streams to a partial file as it arrives (memory stays flat whatever the
/// size) and moves atomically onto the form's `destination` when it completes, as the form's
/// ``DownloadFormable/destinationOptions`` allow (by default it never replaces a file or creates
/// a folder).
///
/// ```swift
/// let file = try await download(ReportForm())
///     .progress(progressView)
///     .fileURL()
/// ```
///
/// After a failure that left received bytes on disk, ``resumeData`` lets a later request (even
/// after an app restart) fetch only the rest; ``cancel(producingResumeData:)`` keeps them on purpose.
public final class DownloadRequest: Request, @unchecked Sendable {  // adds a Sendable `let`
    let file: DownloadFile

    init(core: RequestCore, file: DownloadFile) {
        self.file = file
        super.init(core: core)
    }

    /// Where the finished file goes.
    var destination: URL { file.destination }

    /// What a later request needs to fetch only the rest of this download: set after a failure
    /// (or ``cancel(producingResumeData:)``) that left received bytes and a validator (an `ETag`
    /// not marked weak, or `Last-Modified`). That includes a complete download the destination
    /// could not take (a folder is there, a file the form may not replace...): resuming it to
    /// another destination then costs one request and no body. `Codable`: persist it to resume
    /// after an app restart with a ``DownloadResumeFormable``. When it is `nil`, no partial file
    /// was left behind.
    public var resumeData: ResumeData? {
        guard isFinished else { return nil }
        return file.resumeData(for: core.request)
    }

    /// Cancels the download, keeping what arrived so it can be resumed later.
    /// - Parameter producingResumeData: `true` to keep the partial file and return its resume data;
    ///   `false` to delete it, like ``Request/cancel()``.
    /// - Returns: The resume data, or `nil` when nothing resumable arrived (no bytes, or the server
    ///   gave no validator).
    @discardableResult
    public func cancel(producingResumeData: Bool) async -> ResumeData? {
        if producingResumeData { file.keepPartialOnCancel() }
        core.cancel()
        _ = await core.outcome()
        return producingResumeData ? resumeData : nil
    }

    /// Waits for the download and returns the file's location (the form's `destination`).
    /// - Returns: The downloaded file.
    /// - Throws: ``NetworkError``.
    public func fileURL() async throws(NetworkError) -> URL {
        let outcome = await core.outcome()
        if let error = outcome.error { throw error }
        return file.destination
    }

    /// Calls `completionHandler` with the file's location once the download ends.
    /// - Parameter completionHandler: Runs on the main actor.
    /// - Returns: The request.
    @discardableResult
    public func response(completionHandler: @escaping @MainActor @Sendable (DownloadResponse) -> Void) -> Self
    {
        let destination = file.destination
        core.append { [file] outcome in
            let response = DownloadResponse(
                outcome, fileURL: destination,
                resumeData: outcome.error == nil ? nil : file.resumeData(for: outcome.request))
            await MainActor.run { completionHandler(response) }
        }
        return self
    }

    /// Waits for the download and returns the full response.
    /// - Returns: The response, whose `result` holds the file URL or the error.
    public func response() async -> DownloadResponse {
        let outcome = await core.outcome()
        return DownloadResponse(
            outcome, fileURL: file.destination,
            resumeData: outcome.error == nil ? nil : file.resumeData(for: outcome.request))
    }
}

/// What a download delivers: what was sent, what came back, and the file or the error.
public struct DownloadResponse: Sendable {
    /// The request that was sent, if it got that far.
    public let request: URLRequest?
    /// The HTTP response, if one arrived.
    public let response: HTTPURLResponse?
    /// The file URL on success, or the error.
    public let result: Result<URL, NetworkError>
    /// The body of an error response (e.g. a 404's message), kept in memory; `nil` on success.
    public let errorBody: Data?
    /// Seconds from the start of the request until it finished.
    public let duration: TimeInterval
    /// On a failure that left resumable bytes (also a complete download its destination could not
    /// take), what a later request needs to fetch only the rest.
    public let resumeData: ResumeData?

    init(_ outcome: RequestOutcome, fileURL: URL, resumeData: ResumeData?) {
        request = outcome.request
        response = outcome.response
        result = outcome.error.map { .failure($0) } ?? .success(fileURL)
        errorBody = outcome.error == nil ? nil : outcome.data
        duration = outcome.duration
        self.resumeData = resumeData
    }

    /// The downloaded file on success.
    public var fileURL: URL? { try? result.get() }

    /// The error on failure.
    public var error: NetworkError? {
        guard case .failure(let error) = result else { return nil }
        return error
    }
}
