import Foundation

/// A download's body on disk: a partial file that every received chunk is appended to, put at the
/// destination by ``DestinationMove`` when the download succeeds.
///
/// Keeping the partial file (rather than a `downloadTask`'s hidden temp file) means every byte
/// received survives a failure, so the next attempt can ask for the rest with `Range`. The
/// partial file lives next to the destination (so the final move is one atomic `rename` or
/// `link`), or in the temporary directory when that folder cannot take it yet.
///
/// One rule about leftovers: a download that ends without offering resume data (no bytes, no
/// validator, a plain cancel) leaves no partial file behind.
final class DownloadFile: ResponseSink {
    struct State {
        var handle: FileHandle?
        /// The partial file; for a fresh download chosen when the first body arrives.
        var partialURL: URL?
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
        /// How many times a response made the download start again or re-ask for the whole body.
        var restarts = 0
        /// `true` while the body is fetched one bounded range at a time (turned off when the
        /// server ignores or refuses ranges).
        var segmenting: Bool
        /// Set when the body cannot be used (ranges that keep going wrong, an unwritable file):
        /// the attempt ends with this error even if the transfer itself succeeded.
        var failure: NetworkError?
        /// Body bytes of the current response still to drop: a 200 resending bytes already kept.
        var bytesToSkip: Int64 = 0
        /// The server refused a range it could serve: later requests ask for the whole body.
        var rangesRefused = false
        /// `true` until the first answer to a resume arrives.
        var awaitsResumeAnswer: Bool
        /// The attempt whose 416 proved the partial file complete: its own body is not needed.
        var completedByAttempt: Int?
        /// The attempt the request ended with, once it ended: a response of that attempt (or an
        /// earlier one) that comes after is not opened, so no file outlives the end.
        var closedAttempt = 0
    }

    /// How many times a download may start again from zero (or re-ask for the whole body) before
    /// it fails.
    static let maximumRestarts = 2

    /// Where the finished file goes.
    let destination: URL
    /// What the final move may do at the destination.
    let options: DownloadDestinationOptions
    /// The most bytes one request asks for, or `nil` (the default) to fetch the rest in one request.
    let segmentSize: Int64?
    let state: Protected<State>

    /// - Parameters:
    ///   - destination: The final file.
    ///   - options: What the final move may do there.
    ///   - partialURL: When resuming, the partial file holding `offset` bytes already.
    ///   - offset: Bytes already in the partial file (0 for a fresh download).
    ///   - validator: The validator those bytes were served with.
    ///   - total: The file's full size, if known.
    ///   - segmentSize: The most bytes one request asks for.
    init(
        destination: URL, options: DownloadDestinationOptions = [], partialURL: URL? = nil, offset: Int64 = 0,
        validator: ResumeData.Validator? = nil, total: Int64? = nil, segmentSize: Int64? = nil
    ) {
        self.destination = destination
        self.options = options
        self.segmentSize = segmentSize.map { max(1, $0) }
        var offset = offset
        if offset > 0 {
            // Trust only what is really on disk.
            let size =
                partialURL.flatMap {
                    (try? FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? NSNumber)?
                        .int64Value
                } ?? 0
            offset = size >= offset ? offset : 0
        }
        state = Protected(
            State(
                partialURL: partialURL, offset: offset, validator: offset > 0 ? validator : nil,
                total: offset > 0 ? total : nil, segmenting: segmentSize != nil,
                awaitsResumeAnswer: offset > 0))
    }

    /// Continues the download described by `resumeData` into `destination`.
    convenience init(
        resuming resumeData: ResumeData, destination: URL, options: DownloadDestinationOptions = [],
        segmentSize: Int64? = nil
    ) {
        self.init(
            destination: destination, options: options, partialURL: resumeData.partialFileURL,
            offset: resumeData.isResumable ? resumeData.bytesReceived : 0, validator: resumeData.validator,
            total: resumeData.totalBytes, segmentSize: segmentSize)
    }

    /// The headers that ask for the rest of the partial file, or none when starting from zero.
    ///
    /// By default (no ``segmentSize``) one request asks for the whole body, or for the whole rest
    /// (`bytes=N-`) when resuming: memory is bounded by the session's ``DeliveryQueue``, which
    /// slows the network down when the disk falls behind, so no response needs to be cut short.
    /// When segmenting (the opt-in fallback), each request asks for at most ``segmentSize``
    /// bytes; the first request of a resume still asks for the rest open-ended when the rest is
    /// known to fit in one segment. After a server refused a range it could serve, requests ask
    /// for the whole body.
    var rangeHeaders: [(String, String)] {
        state.withLock { state in
            guard !state.rangesRefused else { return [] }
            var end = ""
            if state.segmenting, let segmentSize {
                let restFits = state.total.map { $0 - state.offset <= segmentSize } ?? false
                if !(state.awaitsResumeAnswer && restFits) { end = String(state.offset + segmentSize - 1) }
            }
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

    /// What a later request needs to fetch only the rest (or, when only the final move failed,
    /// nothing but a check), when the partial file allows a resume.
    func resumeData(for request: URLRequest?) -> ResumeData? {
        state.withLock { state in
            guard Self.offersResumeData(state), let partialURL = state.partialURL,
                let validator = state.validator,
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

    /// Whether the partial file is worth keeping: bytes, and a validator to resume them with.
    private static func offersResumeData(_ state: State) -> Bool {
        !state.isComplete && state.offset > 0 && state.validator != nil
    }

    // MARK: ResponseSink

    /// Writing to disk may fall behind the network: the transport waits for it.
    var pacing: SinkPacing { .disk }

    func open(_ response: HTTPURLResponse, attempt: Int) -> SinkDecision {
        let status = response.statusCode
        let headers = HTTPHeaders(responseHeadersOf: response)
        let length: Int64? = response.expectedContentLength >= 0 ? response.expectedContentLength : nil
        return state.withLock { state -> SinkDecision in
            // A head whose request ended while it was on its way (a cancel between the engine's
            // check and this call): opening would create a partial file nothing removes.
            guard attempt > state.closedAttempt else { return .collectInMemory }
            closeHandle(&state)
            state.attempt = attempt
            state.failure = nil
            state.bytesToSkip = 0
            state.completedByAttempt = nil
            state.awaitsResumeAnswer = false
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
                offset: state.offset, status: status, headers: headers, expectedTotal: state.total,
                validator: state.validator)
            switch decision {
            case .append(let contentRange):
                return begin(&state, at: state.offset, total: contentRange.completeLength, headers: headers)
            case .appendAfterSkipping(let count):
                state.segmenting = false
                let start = begin(&state, at: state.offset, total: length, headers: headers)
                state.bytesToSkip = count
                return start
            case .restartFromZero(let reason) where reason.responseBodyIsWholeFile:
                // The file changed (or nothing shows it did not): this body is all of it.
                resetPartial(&state)
                state.segmenting = false
                return begin(&state, at: 0, total: length, headers: headers)
            case .restartFromZero(let reason):
                resetPartial(&state)
                return restart(&state, because: "\(reason)")
            case .alreadyComplete(let total):
                state.total = total
                state.written = state.offset
                state.completedByAttempt = attempt
                return .complete(TransferProgress(completedBytes: total, totalBytes: total))
            case .recheckWithoutRange:
                state.rangesRefused = true
                state.segmenting = false
                return restart(
                    &state,
                    because: "answers that do not fit the range asked for (416, or a 206 for other bytes)")
            case .notARangeResponse(let status):
                // An error (or odd 2xx) response: keep the partial file for a later resume.
                guard (200..<300).contains(status) else { return .collectInMemory }
                resetPartial(&state)
                return begin(&state, at: 0, total: length, headers: headers)
            }
        }
    }

    func isComplete(attempt: Int) -> Bool {
        state.withLock { $0.completedByAttempt == attempt }
    }

    /// Opens the partial file for writing from `start` and returns the starting progress.
    private func begin(_ state: inout State, at start: Int64, total: Int64?, headers: HTTPHeaders)
        -> SinkDecision
    {
        do {
            state.handle = try openPartial(&state, keeping: start)
        } catch {
            state.failure = NetworkError(
                .fileOperationFailed,
                failureReason:
                    "Cannot open the partial file \(state.partialURL?.path ?? "") of \(destination.path): \(error)",
                underlyingError: error)
            return .collectInMemory
        }
        state.offset = start
        state.written = start
        state.total = total
        state.validator = ResumeData.Validator.forIfRange(from: headers)
        return .write(TransferProgress(completedBytes: start, totalBytes: total))
    }

    /// Asks for a new attempt at once (whose request `rangeHeaders` describes), unless responses
    /// made that happen too often.
    private func restart(_ state: inout State, because reason: String) -> SinkDecision {
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
                        .fileOperationFailed,
                        failureReason: "The partial file of \(destination.path) is closed."))
            }
            // Bytes a whole-body answer resends that are on disk already.
            let skipped = Int(min(state.bytesToSkip, Int64(data.count)))
            state.bytesToSkip -= Int64(skipped)
            let bytes = skipped == 0 ? data : data.dropFirst(skipped)
            do {
                if !bytes.isEmpty { try handle.write(contentsOf: bytes) }
            } catch {
                return .failure(
                    NetworkError(
                        .fileOperationFailed,
                        failureReason:
                            "Cannot write to the partial file \(state.partialURL?.path ?? ""): \(error.localizedDescription)",
                        underlyingError: error))
            }
            state.written += Int64(bytes.count)
            // Every byte on disk counts for a resume, as long as the validator is known.
            state.offset = state.written
            return .success(TransferProgress(completedBytes: state.written, totalBytes: state.total))
        }
        return try result.get()
    }

    func close(attempt: Int, error: NetworkError?) -> NetworkError? {
        state.withLock { state -> NetworkError? in
            closeHandle(&state)
            state.closedAttempt = max(state.closedAttempt, attempt)
            let result: NetworkError?
            if let error {
                if error.isCancelled, !state.keepsPartialOnCancel {
                    resetPartial(&state)
                }
                result = nil
            } else {
                result = state.failure ?? finish(&state)
            }
            if error != nil || result != nil, !Self.offersResumeData(state) {
                // Nothing to resume: leave nothing behind.
                resetPartial(&state)
            }
            return result
        }
    }
}
