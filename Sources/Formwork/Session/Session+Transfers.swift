import Foundation

extension Session {
    /// Downloads a form's body to its `destination`, streaming it to disk as it arrives.
    /// - Parameters:
    ///   - form: What to download.
    ///   - isolation: The caller's actor (filled in by the compiler): the request starts once it
    ///     finishes the current statement, so everything chained on it applies. With no actor
    ///     it starts at the first handler, hook, async accessor or ``Request/resume()``.
    /// - Returns: The request.
    @discardableResult
    public func download(_ form: some DownloadFormable, isolation: isolated (any Actor)? = #isolation)
        -> DownloadRequest
    {
        // Generic code calls this overload even for resume forms: check here too.
        if let resume = form as? any DownloadResumeFormable {
            return download(resume, isolation: isolation)
        }
        let file = DownloadFile(
            destination: form.destination, options: form.destinationOptions,
            segmentSize: configuration.downloadSegmentSize)
        return makeDownload(form, file: file, isolation: isolation)
    }

    /// Continues an interrupted download from its resume data, fetching only the missing bytes.
    /// - Parameters:
    ///   - form: The resume form.
    ///   - isolation: The caller's actor (filled in by the compiler).
    /// - Returns: The request.
    @discardableResult
    public func download(_ form: some DownloadResumeFormable, isolation: isolated (any Actor)? = #isolation)
        -> DownloadRequest
    {
        let file = DownloadFile(
            resuming: form.resumeData, destination: form.destination, options: form.destinationOptions,
            segmentSize: configuration.downloadSegmentSize)
        return makeDownload(form, file: file, isolation: isolation)
    }

    func makeDownload(
        _ form: some DownloadFormable, file: DownloadFile, isolation: isolated (any Actor)? = #isolation
    ) -> DownloadRequest {
        let (snapshot, configuration) = (FormSnapshot(form), self.configuration)
        let core = RequestCore(
            host: self, sink: file, progress: .download,
            build: .immediate { _ in
                var request = try URLRequestBuilder.request(for: snapshot, configuration: configuration)
                // Ranges and byte counts refer to the bytes on disk: ask for them unencoded.
                if request.value(forHTTPHeaderField: "Accept-Encoding") == nil {
                    request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
                }
                for (name, value) in file.rangeHeaders {
                    request.setValue(value, forHTTPHeaderField: name)
                }
                return PreparedRequest(urlRequest: request, redirectPolicy: snapshot.redirectPolicy)
            })
        let request = DownloadRequest(core: core, file: file)
        core.scheduleStart(isolation: isolation)
        return request
    }

    /// Uploads bytes held in memory.
    /// - Parameters:
    ///   - form: What to upload.
    ///   - isolation: The caller's actor (filled in by the compiler): the request starts once it
    ///     finishes the current statement, so everything chained on it applies. With no actor
    ///     it starts at the first handler, hook, async accessor or ``Request/resume()``.
    /// - Returns: The request.
    @discardableResult
    public func upload(_ form: some UploadDataFormable, isolation: isolated (any Actor)? = #isolation)
        -> UploadRequest
    {
        let data = form.data
        return makeUpload(form, isolation: isolation) { request in
            setDefaultContentType("application/octet-stream", on: &request)
            return PreparedRequest(urlRequest: request, body: .data(data))
        }
    }

    /// Uploads a file, read as it is sent.
    /// - Parameters:
    ///   - form: What to upload.
    ///   - isolation: The caller's actor (filled in by the compiler): the request starts once it
    ///     finishes the current statement, so everything chained on it applies. With no actor
    ///     it starts at the first handler, hook, async accessor or ``Request/resume()``.
    /// - Returns: The request.
    @discardableResult
    public func upload(_ form: some UploadFileFormable, isolation: isolated (any Actor)? = #isolation)
        -> UploadRequest
    {
        let fileURL = form.fileURL
        return makeUpload(form, isolation: isolation) { request in
            try checkReadableFile(fileURL, request: request)
            setDefaultContentType(MIMEType.guess(forPathExtension: fileURL.pathExtension), on: &request)
            return PreparedRequest(urlRequest: request, body: .file(fileURL))
        }
    }

    /// Uploads a stream made fresh for each attempt, sent with chunked transfer encoding.
    /// - Parameters:
    ///   - form: What to upload.
    ///   - isolation: The caller's actor (filled in by the compiler): the request starts once it
    ///     finishes the current statement, so everything chained on it applies. With no actor
    ///     it starts at the first handler, hook, async accessor or ``Request/resume()``.
    /// - Returns: The request.
    @discardableResult
    public func upload(_ form: some UploadStreamFormable, isolation: isolated (any Actor)? = #isolation)
        -> UploadRequest
    {
        makeUpload(form, isolation: isolation) { request in
            // A fresh stream for every attempt, and for every time URLSession asks for one.
            let makeStream: @Sendable () throws -> InputStream = { [request] in
                do {
                    return try form.makeStream()
                } catch {
                    throw NetworkError(
                        .requestBuildFailed,
                        failureReason: "The form could not make its upload stream: \(error)",
                        underlyingError: error, request: request)
                }
            }
            request.httpBodyStream = try makeStream()
            setDefaultContentType("application/octet-stream", on: &request)
            return PreparedRequest(urlRequest: request, makeBodyStream: makeStream)
        }
    }

    /// Uploads `multipart/form-data`, built in memory or, above the form's threshold, in a
    /// temporary file removed when each attempt ends.
    /// - Parameters:
    ///   - form: What to upload.
    ///   - isolation: The caller's actor (filled in by the compiler): the request starts once it
    ///     finishes the current statement, so everything chained on it applies. With no actor
    ///     it starts at the first handler, hook, async accessor or ``Request/resume()``.
    /// - Returns: The request.
    @discardableResult
    public func upload(_ form: some UploadMultipartFormable, isolation: isolated (any Actor)? = #isolation)
        -> UploadRequest
    {
        let multipart = form.multipartFormData
        let (threshold, directory) = (form.encodingMemoryThreshold, form.encodingDirectory)
        return makeUpload(form, isolation: isolation) { request in
            let body: EncodedMultipartBody
            do {
                // Building a large body writes a file: keep that off the concurrency pool.
                body = try await offload {
                    try multipart.encodedBody(memoryThreshold: threshold, temporaryDirectory: directory)
                }
            } catch let error as NetworkError {
                throw error.with(request: request)
            } catch {
                throw NetworkError(
                    .requestBuildFailed, failureReason: "The multipart body could not be built: \(error)",
                    underlyingError: error, request: request)
            }
            request.setValue(multipart.contentType, forHTTPHeaderField: "Content-Type")
            switch body {
            case .data(let data):
                return PreparedRequest(urlRequest: request, body: .data(data))
            case .temporaryFile(let url, _):
                return PreparedRequest(urlRequest: request, body: .file(url), temporaryFiles: [url])
            }
        }
    }

    /// Builds an upload request whose body `prepare` attaches to the form's base request.
    func makeUpload(
        _ form: some UploadFormable, isolation: isolated (any Actor)? = #isolation,
        prepare: @escaping @Sendable (inout URLRequest) async throws -> PreparedRequest
    ) -> UploadRequest {
        let (snapshot, configuration) = (FormSnapshot(base: form), self.configuration)
        let core = RequestCore(host: self, progress: .upload) { _ in
            var request = try URLRequestBuilder.baseRequest(for: snapshot, configuration: configuration)
            var prepared = try await prepare(&request)
            prepared.redirectPolicy = snapshot.redirectPolicy
            return prepared
        }
        let request = UploadRequest(core: core)
        core.scheduleStart(isolation: isolation)
        return request
    }
}

/// Sets `Content-Type` unless the form set one.
func setDefaultContentType(_ type: String, on request: inout URLRequest) {
    if request.value(forHTTPHeaderField: "Content-Type") == nil {
        request.setValue(type, forHTTPHeaderField: "Content-Type")
    }
}

/// Fails clearly, before anything is sent, when a file to upload is missing or unreadable.
func checkReadableFile(_ url: URL, request: URLRequest) throws(NetworkError) {
    var isDirectory: ObjCBool = false
    let exists = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
    guard url.isFileURL, exists, !isDirectory.boolValue, FileManager.default.isReadableFile(atPath: url.path)
    else {
        let (reason, why): (NetworkError.Reason, String) =
            if !url.isFileURL {
                (.notAFileURL, "is not a file URL")
            } else if !exists {
                (.fileNotFound, "does not exist")
            } else if isDirectory.boolValue {
                (.fileIsDirectory, "is a directory")
            } else {
                (.fileNotReadable, "is not readable")
            }
        throw NetworkError(
            .fileOperationFailed, failureReason: "The file to upload \(url.path) \(why).",
            details: .init(reason: reason, fileURL: url), request: request)
    }
}
