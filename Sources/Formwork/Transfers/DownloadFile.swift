import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A download's body on disk: a partial file beside the destination that every received chunk is
/// appended to, moved atomically onto the destination when the download succeeds.
///
/// Keeping the partial file (rather than a `downloadTask`'s hidden temp file) means every byte
/// received survives a failure, so the next attempt can ask for the rest with `Range`.
final class DownloadFile: ResponseSink {
    private struct State {
        var handle: FileHandle?
        /// Bytes in the partial file that a resumed request may continue from.
        var offset: Int64
        /// The validator (strong ETag, else Last-Modified) of the bytes in the partial file.
        var validator: ResumeData.Validator?
        /// Bytes of the current attempt's body written so far, plus the offset it started at.
        var written: Int64 = 0
        var total: Int64?
        var attempt = 0
        /// `true` once the file is at its destination.
        var isComplete = false
        /// `true` when a cancel should keep the partial file (to resume later).
        var keepsPartialOnCancel = false
        /// How many times a response made the download start again from zero.
        var restarts = 0
        /// `true` while the body is fetched one bounded range at a time (turned off when the
        /// server ignores or refuses ranges).
        var segmenting: Bool
        /// Set when the body cannot be used (ranges that keep going wrong, an unwritable file):
        /// the attempt ends with this error even if the transfer itself succeeded.
        var failure: NetworkError?
    }

    /// How many times a download may start again from zero before it fails.
    static let maximumRestarts = 2

    /// Where the finished file goes.
    let destination: URL
    /// The most bytes one request asks for, or `nil` to fetch the rest in one request.
    let segmentSize: Int64?
    /// Where the bytes go while they arrive.
    let partialURL: URL
    private let state: Protected<State>

    /// - Parameters:
    ///   - destination: The final file.
    ///   - partialURL: The partial file; when resuming, the one holding `offset` bytes already.
    ///   - offset: Bytes already in the partial file (0 for a fresh download).
    ///   - validator: The validator those bytes were served with.
    ///   - total: The file's full size, if known.
    init(
        destination: URL, partialURL: URL? = nil, offset: Int64 = 0, validator: ResumeData.Validator? = nil,
        total: Int64? = nil, segmentSize: Int64? = nil
    ) {
        self.destination = destination
        self.segmentSize = segmentSize.map { max(1, $0) }
        self.partialURL =
            partialURL
            ?? destination.deletingLastPathComponent().appendingPathComponent(
                ".\(destination.lastPathComponent).\(UUID().uuidString.prefix(8)).formwork-partial")
        var offset = offset
        if offset > 0 {
            // Trust only what is really on disk.
            let size =
                (try? FileManager.default.attributesOfItem(atPath: self.partialURL.path)[.size] as? NSNumber)?
                .int64Value ?? 0
            offset = size >= offset ? offset : 0
        }
        state = Protected(
            State(
                offset: offset, validator: offset > 0 ? validator : nil, total: offset > 0 ? total : nil,
                segmenting: segmentSize != nil))
    }

    /// Continues the download described by `resumeData` into `destination`.
    convenience init(resuming resumeData: ResumeData, destination: URL, segmentSize: Int64? = nil) {
        self.init(
            destination: destination, partialURL: resumeData.partialFileURL,
            offset: resumeData.isResumable ? resumeData.bytesReceived : 0, validator: resumeData.validator,
            total: resumeData.totalBytes, segmentSize: segmentSize)
    }

    /// The headers that ask for the rest of the partial file, or none when starting from zero.
    ///
    /// While segmenting, each request asks for at most ``segmentSize`` bytes: corelibs URLSession
    /// has no back-pressure, so bounding what one response can deliver bounds the memory a fast
    /// network can pile up ahead of the disk.
    var rangeHeaders: [(String, String)] {
        state.withLock { state in
            let end = state.segmenting ? segmentSize.map { String(state.offset + $0 - 1) } ?? "" : ""
            if state.offset == 0 {
                return end.isEmpty ? [] : [("Range", "bytes=0-\(end)")]
            }
            guard let validator = state.validator else { return [] }
            return [("Range", "bytes=\(state.offset)-\(end)"), ("If-Range", validator.headerValue)]
        }
    }

    /// After a successful response: `true` when the file is not complete yet and the next segment
    /// should be fetched (the engine then starts a new attempt at once).
    func wantsNextSegment() -> Bool {
        state.withLock { state in
            guard state.segmenting, state.failure == nil, let total = state.total, state.written < total
            else {
                return false
            }
            if state.validator == nil {
                // Without a validator the next range could come from a changed file: fetch it all.
                resetPartial(&state)
                state.segmenting = false
            }
            return true
        }
    }

    /// What a later request needs to fetch only the rest, when the partial file allows a resume.
    func resumeData(for request: URLRequest?) -> ResumeData? {
        state.withLock { state in
            guard !state.isComplete, state.offset > 0, let validator = state.validator,
                let request, let url = request.url
            else { return nil }
            return ResumeData(
                url: url.absoluteString, method: HTTPMethod(rawValue: request.httpMethod ?? "GET"),
                headers: request.headers, partialFileURL: partialURL, bytesReceived: state.offset,
                totalBytes: state.total, validator: validator)
        }
    }

    /// Keep the partial file when the request is cancelled (to resume later).
    func keepPartialOnCancel() {
        state.withLock { $0.keepsPartialOnCancel = true }
    }

    // MARK: ResponseSink

    func open(_ response: HTTPURLResponse, attempt: Int) -> SinkDecision {
        let status = response.statusCode
        let headers = HTTPHeaders(responseHeadersOf: response)
        let length: Int64? = response.expectedContentLength >= 0 ? response.expectedContentLength : nil
        return state.withLock { state -> SinkDecision in
            closeHandle(&state)
            state.attempt = attempt
            state.failure = nil
            if status == 416, state.offset == 0, state.segmenting {
                // A range of an empty file cannot be satisfied: ask again without ranges.
                state.segmenting = false
                return .restart
            }
            guard state.offset > 0 || status == 206 else {
                // A fresh download: any 2xx body is the file (a server that ignores ranges sends it
                // all); anything else is an error body.
                guard (200..<300).contains(status) else { return .collectInMemory }
                state.segmenting = false
                return begin(&state, at: 0, total: length, headers: headers)
            }
            let decision = ResumeDecision.decide(
                offset: state.offset, status: status, headers: headers, expectedTotal: state.total)
            switch decision {
            case .append(let contentRange):
                return begin(&state, at: state.offset, total: contentRange.completeLength, headers: headers)
            case .restartFromZero(let reason) where reason.responseBodyIsWholeFile:
                // The file changed (or the server ignores ranges): this body is all of it.
                resetPartial(&state)
                state.segmenting = false
                return begin(&state, at: 0, total: length, headers: headers)
            case .restartFromZero(let reason):
                return restart(&state, because: "\(reason)")
            case .alreadyComplete:
                return restart(&state, because: "a 416 for a range past the end")
            case .notARangeResponse(let status):
                // An error (or odd 2xx) response: keep the partial file for a later resume.
                guard (200..<300).contains(status) else { return .collectInMemory }
                resetPartial(&state)
                return begin(&state, at: 0, total: length, headers: headers)
            }
        }
    }

    /// Opens the partial file for writing from `start` and returns the starting progress.
    private func begin(_ state: inout State, at start: Int64, total: Int64?, headers: HTTPHeaders)
        -> SinkDecision
    {
        do {
            state.handle = try openPartial(keeping: start)
        } catch {
            state.failure = NetworkError(
                .fileOperationFailed,
                failureReason: "Cannot open the partial file \(partialURL.path): \(error)",
                underlyingError: error)
            return .collectInMemory
        }
        state.offset = start
        state.written = start
        state.total = total
        state.validator = ResumeData.Validator.forIfRange(from: headers)
        return .write(TransferProgress(completedBytes: start, totalBytes: total))
    }

    /// Drops the partial file and asks for a new attempt from zero, unless that happened too often.
    private func restart(_ state: inout State, because reason: String) -> SinkDecision {
        resetPartial(&state)
        state.restarts += 1
        guard state.restarts <= Self.maximumRestarts else {
            state.failure = NetworkError(
                .transport,
                failureReason: "The download cannot be completed: the server kept answering with \(reason).",
                underlyingError: URLError(.badServerResponse))
            return .collectInMemory
        }
        return .restart
    }

    func write(_ data: Data) throws(NetworkError) -> TransferProgress {
        let result = state.withLock { state -> Result<TransferProgress, NetworkError> in
            guard let handle = state.handle else {
                return .failure(
                    NetworkError(
                        .fileOperationFailed, failureReason: "The partial file \(partialURL.path) is closed.")
                )
            }
            do {
                try handle.write(contentsOf: data)
            } catch {
                return .failure(
                    NetworkError(
                        .fileOperationFailed,
                        failureReason:
                            "Cannot write to the partial file \(partialURL.path): \(error.localizedDescription)",
                        underlyingError: error))
            }
            state.written += Int64(data.count)
            // Every byte on disk counts for a resume, as long as the validator is known.
            state.offset = state.written
            return .success(TransferProgress(completedBytes: state.written, totalBytes: state.total))
        }
        return try result.get()
    }

    func close(attempt: Int, error: NetworkError?) -> NetworkError? {
        state.withLock { state -> NetworkError? in
            closeHandle(&state)
            if error == nil, let failure = state.failure {
                return failure
            }
            guard let error else { return finish(&state) }
            if error.isCancelled, !state.keepsPartialOnCancel {
                resetPartial(&state)
            }
            return nil
        }
    }

    // MARK: Files

    private func openPartial(keeping bytes: Int64) throws -> FileHandle {
        let manager = FileManager.default
        try manager.createDirectory(
            at: partialURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        if !manager.fileExists(atPath: partialURL.path) {
            guard manager.createFile(atPath: partialURL.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown)
            }
        }
        let handle = try FileHandle(forWritingTo: partialURL)
        try handle.truncate(atOffset: UInt64(bytes))
        try handle.seek(toOffset: UInt64(bytes))
        return handle
    }

    private func closeHandle(_ state: inout State) {
        try? state.handle?.close()
        state.handle = nil
    }

    private func resetPartial(_ state: inout State) {
        try? FileManager.default.removeItem(at: partialURL)
        state.offset = 0
        state.written = 0
        state.validator = nil
    }

    /// Moves the partial file onto the destination (atomic on one file system).
    private func finish(_ state: inout State) -> NetworkError? {
        guard !state.isComplete else { return nil }
        if !FileManager.default.fileExists(atPath: partialURL.path) {
            // A body-less success (e.g. an empty 200 never opened the file): an empty file.
            _ = FileManager.default.createFile(atPath: partialURL.path, contents: nil)
        }
        if rename(partialURL.path, destination.path) != 0 {
            let reason = String(cString: strerror(errno))
            do {
                if FileManager.default.fileExists(atPath: destination.path) {
                    try FileManager.default.removeItem(at: destination)
                }
                try FileManager.default.moveItem(at: partialURL, to: destination)
            } catch {
                return NetworkError(
                    .fileOperationFailed,
                    failureReason:
                        "Cannot move the download to \(destination.path): \(reason); \(error.localizedDescription)",
                    underlyingError: error)
            }
        }
        state.isComplete = true
        state.offset = 0
        return nil
    }
}
