import Foundation

extension Requestable {
    /// Downloads a form's body to its `destination`, streaming it to disk.
    /// - Parameters:
    ///   - form: What to download.
    ///   - session: The session that runs it.
    ///   - isolation: The caller's actor, filled in by the compiler.
    /// - Returns: The request (see ``Session/request(_:isolation:)`` for when it starts).
    @discardableResult
    public func download(
        _ form: some DownloadFormable, session: Session = .default,
        isolation: isolated (any Actor)? = #isolation
    )
        -> DownloadRequest
    {
        session.download(form, isolation: isolation)
    }

    /// Continues an interrupted download from its resume data, fetching only the missing bytes.
    /// - Parameters:
    ///   - form: The resume form.
    ///   - session: The session that runs it.
    ///   - isolation: The caller's actor, filled in by the compiler.
    /// - Returns: The request (see ``Session/request(_:isolation:)`` for when it starts).
    @discardableResult
    public func download(
        _ form: some DownloadResumeFormable, session: Session = .default,
        isolation: isolated (any Actor)? = #isolation
    ) -> DownloadRequest {
        session.download(form, isolation: isolation)
    }

    /// Uploads bytes held in memory.
    /// - Parameters:
    ///   - form: What to upload.
    ///   - session: The session that runs it.
    ///   - isolation: The caller's actor, filled in by the compiler.
    /// - Returns: The request (see ``Session/request(_:isolation:)`` for when it starts).
    @discardableResult
    public func upload(
        _ form: some UploadDataFormable, session: Session = .default,
        isolation: isolated (any Actor)? = #isolation
    )
        -> UploadRequest
    {
        session.upload(form, isolation: isolation)
    }

    /// Uploads a file, read as it is sent.
    /// - Parameters:
    ///   - form: What to upload.
    ///   - session: The session that runs it.
    ///   - isolation: The caller's actor, filled in by the compiler.
    /// - Returns: The request (see ``Session/request(_:isolation:)`` for when it starts).
    @discardableResult
    public func upload(
        _ form: some UploadFileFormable, session: Session = .default,
        isolation: isolated (any Actor)? = #isolation
    )
        -> UploadRequest
    {
        session.upload(form, isolation: isolation)
    }

    /// Uploads a stream made fresh for each attempt.
    /// - Parameters:
    ///   - form: What to upload.
    ///   - session: The session that runs it.
    ///   - isolation: The caller's actor, filled in by the compiler.
    /// - Returns: The request (see ``Session/request(_:isolation:)`` for when it starts).
    @discardableResult
    public func upload(
        _ form: some UploadStreamFormable, session: Session = .default,
        isolation: isolated (any Actor)? = #isolation
    )
        -> UploadRequest
    {
        session.upload(form, isolation: isolation)
    }

    /// Uploads `multipart/form-data`, in memory or, for large bodies, from a temporary file.
    /// - Parameters:
    ///   - form: What to upload.
    ///   - session: The session that runs it.
    ///   - isolation: The caller's actor, filled in by the compiler.
    /// - Returns: The request (see ``Session/request(_:isolation:)`` for when it starts).
    @discardableResult
    public func upload(
        _ form: some UploadMultipartFormable, session: Session = .default,
        isolation: isolated (any Actor)? = #isolation
    ) -> UploadRequest {
        session.upload(form, isolation: isolation)
    }
}
