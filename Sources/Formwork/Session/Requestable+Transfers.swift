import Foundation

extension Requestable {
    /// Downloads a form's body to its `destination`, streaming it to disk.
    /// - Parameters:
    ///   - form: What to download.
    ///   - session: The session that runs it.
    /// - Returns: The request, already started.
    @discardableResult
    public func download(_ form: some DownloadFormable, session: Session = .default) -> DownloadRequest {
        session.download(form)
    }

    /// Uploads bytes held in memory.
    /// - Parameters:
    ///   - form: What to upload.
    ///   - session: The session that runs it.
    /// - Returns: The request, already started.
    @discardableResult
    public func upload(_ form: some UploadDataFormable, session: Session = .default) -> UploadRequest {
        session.upload(form)
    }

    /// Uploads a file, read as it is sent.
    /// - Parameters:
    ///   - form: What to upload.
    ///   - session: The session that runs it.
    /// - Returns: The request, already started.
    @discardableResult
    public func upload(_ form: some UploadFileFormable, session: Session = .default) -> UploadRequest {
        session.upload(form)
    }

    /// Uploads a stream made fresh for each attempt.
    /// - Parameters:
    ///   - form: What to upload.
    ///   - session: The session that runs it.
    /// - Returns: The request, already started.
    @discardableResult
    public func upload(_ form: some UploadStreamFormable, session: Session = .default) -> UploadRequest {
        session.upload(form)
    }
}
