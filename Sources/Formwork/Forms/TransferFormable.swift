import Foundation

/// A form for a download: the body streams to disk and ends up at ``destination``.
///
/// ```swift
/// struct ReportForm: DownloadFormable {
///     var url: String { "https://api.example.com/reports/2026.pdf" }
///     var destination: URL { documents.appendingPathComponent("2026.pdf") }
/// }
/// let file = try await download(ReportForm()).fileURL()
/// ```
public protocol DownloadFormable: RequestFormable {
    /// Where the finished file goes. Defaults to a new file in the temporary directory. Read once
    /// per request.
    var destination: URL { get }
    /// Whether an existing file at ``destination`` may be replaced and its missing folders
    /// created. Defaults to none: the download then fails, keeping its bytes for a resume, rather
    /// than replace a file or create folders. Read once per request.
    var destinationOptions: DownloadDestinationOptions { get }
}

extension DownloadFormable {
    /// A new, unique file in the temporary directory.
    public var destination: URL {
        FileManager.default.temporaryDirectory.appendingPathComponent(
            "formwork-download-\(UUID().uuidString)")
    }

    /// None: never replace a file, never create folders.
    public var destinationOptions: DownloadDestinationOptions { [] }
}

/// A form that continues an interrupted download from its ``ResumeData`` (even after an app
/// restart): it asks for the missing bytes with `Range` and `If-Range`. If the file changed on the
/// server, or the server answers with the wrong range, the download starts again from zero; the
/// result is the server's file either way.
///
/// ```swift
/// struct ResumeReport: DownloadResumeFormable {
///     let resumeData: ResumeData          // loaded from disk
///     var destination: URL { documents.appendingPathComponent("report.pdf") }
/// }
/// ```
public protocol DownloadResumeFormable: DownloadFormable {
    /// Where the earlier download stopped.
    var resumeData: ResumeData { get }
}

extension DownloadResumeFormable {
    /// The URL the interrupted download was fetching.
    public var url: String { resumeData.url }
    /// The method the interrupted download used.
    public var method: HTTPMethod { resumeData.method }
}

/// A form for an upload. Its method defaults to `.post`.
public protocol UploadFormable: Formable {}

extension UploadFormable {
    /// `.post`.
    public var method: HTTPMethod { .post }
}

/// Uploads bytes held in memory. Without a `Content-Type` header, `application/octet-stream` is sent.
public protocol UploadDataFormable: UploadFormable {
    /// The body.
    var data: Data { get }
}

/// Uploads a file, read as it is sent (never whole into memory), with its `Content-Length`.
/// Without a `Content-Type` header, one is guessed from the file's extension.
public protocol UploadFileFormable: UploadFormable {
    /// The file to send. A missing or unreadable file fails the request before anything is sent.
    var fileURL: URL { get }
}

/// Uploads a stream, sent with chunked transfer encoding (its length need not be known).
///
/// Unlike other forms, a stream form is `Sendable`: ``makeStream()`` is called for each attempt,
/// on whatever thread the request runs, never on the caller's actor. In an app module that
/// defaults to the main actor, declare it `nonisolated struct MyStreamForm: UploadStreamFormable`
/// (and give it its own `headers` if that module's shared-headers extension is main-actor).
public protocol UploadStreamFormable: UploadFormable, Sendable {
    /// Makes a fresh stream for each attempt (a retry or reload cannot reuse a consumed stream).
    /// - Throws: Any error; the request then fails with ``NetworkError/Kind/requestBuildFailed``.
    func makeStream() throws -> InputStream
}

/// Uploads `multipart/form-data` (RFC 7578): text fields and files, as an HTML form would.
///
/// Below ``encodingMemoryThreshold`` the body is built in memory; above it, in a temporary file
/// (file parts copied in chunks, never read whole) that is removed when the attempt ends, however
/// it ends. The `Content-Type` header with the boundary is set for you.
///
/// ```swift
/// struct AvatarForm: UploadMultipartFormable {
///     let image: URL
///     var url: String { "https://api.example.com/avatar" }
///     var multipartFormData: MultipartFormData {
///         var form = MultipartFormData()
///         form.append(Data("42".utf8), name: "userID")
///         form.append(image, name: "avatar")      // file name and MIME type from the URL
///         return form
///     }
/// }
/// ```
public protocol UploadMultipartFormable: UploadFormable {
    /// The parts.
    var multipartFormData: MultipartFormData { get }
    /// Bodies larger than this many bytes are built in a temporary file. Defaults to 10,000,000.
    var encodingMemoryThreshold: Int { get }
    /// Where a large body's temporary file is built. Defaults to the temporary directory.
    var encodingDirectory: URL { get }
}

extension UploadMultipartFormable {
    /// 10,000,000 bytes.
    public var encodingMemoryThreshold: Int { MultipartFormData.defaultEncodingMemoryThreshold }
    /// The temporary directory.
    public var encodingDirectory: URL { FileManager.default.temporaryDirectory }
}
