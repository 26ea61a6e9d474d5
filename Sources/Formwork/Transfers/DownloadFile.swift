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
        var validator: String?
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
        /// Set when the server keeps sending ranges that cannot be used.
        var unusableRange: String?
    }

    /// How many times a download may start again from zero before it fails.
    static let maximumRestarts = 2

    /// Where the finished file goes.
    let destination: URL
    /// Where the bytes go while they arrive.
    let partialURL: URL
    private let state: Protected<State>

    /// - Parameters:
    ///   - destination: The final file.
    ///   - partialURL: The partial file; when resuming, the one holding `offset` bytes already.
    ///   - offset: Bytes already in the partial file (0 for a fresh download).
    ///   - validator: The validator those bytes were served with.
    init(destination: URL, partialURL: URL? = nil, offset: Int64 = 0, validator: String? = nil) {
        self.destination = destination
        self.partialURL =
            partialURL
            ?? destination.deletingLastPathComponent().appendingPathComponent(
                ".\(destination.lastPathComponent).\(UUID().uuidString.prefix(8)).formwork-partial")
        var offset = offset
        if offset > 0 {
            // Trust only what is really on disk.
            let size = (try? FileManager.default.attributesOfItem(atPath: self.partialURL.path)[.size] as? NSNumber)?
                .int64Value ?? 0
            offset = size >= offset ? offset : 0
        }
        state = Protected(State(offset: offset, validator: offset > 0 ? validator : nil))
    }

    /// The headers that ask for the rest of the partial file, or none when starting from zero.
    var rangeHeaders: [(String, String)] {
        state.withLock { state in
            guard state.offset > 0, let validator = state.validator else { return [] }
            return [("Range", "bytes=\(state.offset)-"), ("If-Range", validator)]
        }
    }

    /// Bytes kept in the partial file and their validator, when a resume is possible.
    var resumePoint: (offset: Int64, validator: String)? {
        state.withLock { state in
            guard !state.isComplete, state.offset > 0, let validator = state.validator else { return nil }
            return (state.offset, validator)
        }
    }

    /// Keep the partial file when the request is cancelled (to resume later).
    func keepPartialOnCancel() {
        state.withLock { $0.keepsPartialOnCancel = true }
    }

    // MARK: ResponseSink

    func open(_ response: HTTPURLResponse, attempt: Int) -> SinkDecision {
        let status = response.statusCode
        return state.withLock { state -> SinkDecision in
            closeHandle(&state)
            state.attempt = attempt
            if status == 416, state.offset > 0 {
                // The partial file is not a prefix of what the server has now: start again.
                return restart(&state, because: "the server refused the range (416)")
            }
            guard (200..<300).contains(status) else { return .collectInMemory }
            let validator = Self.validator(of: response)
            var start: Int64 = 0
            var total: Int64? = response.expectedContentLength >= 0 ? response.expectedContentLength : nil
            if status == 206 {
                let header = response.value(forHTTPHeaderField: "Content-Range")
                guard let range = ContentRange(header) else {
                    return restart(&state, because: "a 206 with an unreadable Content-Range \"\(header ?? "")\"")
                }
                let wholeFile = range.first == 0 && range.completeLength == range.last + 1
                guard (range.first == state.offset && state.offset > 0) || wholeFile else {
                    return restart(
                        &state, because: "a 206 for bytes \(range.first)-\(range.last) instead of \(state.offset)-")
                }
                start = range.first
                total = range.completeLength ?? total.map { $0 + range.first }
            }
            do {
                let handle = try openPartial(keeping: start)
                state.handle = handle
                state.offset = start
                state.written = start
                state.total = total
                state.validator = validator
                return .write(TransferProgress(completedBytes: start, totalBytes: total))
            } catch {
                return .collectInMemory
            }
        }
    }

    /// Drops the partial file and asks for a new attempt from zero, unless that happened too often.
    private func restart(_ state: inout State, because reason: String) -> SinkDecision {
        resetPartial(&state)
        state.restarts += 1
        guard state.restarts <= Self.maximumRestarts else {
            state.unusableRange = reason
            return .collectInMemory
        }
        return .restart
    }

    func write(_ data: Data) throws(NetworkError) -> TransferProgress {
        try state.withLock { state throws(NetworkError) -> TransferProgress in
            guard let handle = state.handle else {
                throw NetworkError(.fileOperationFailed, failureReason: "The partial file \(partialURL.path) is closed.")
            }
            do {
                try handle.write(contentsOf: data)
            } catch {
                throw NetworkError(
                    .fileOperationFailed,
                    failureReason: "Cannot write to the partial file \(partialURL.path): \(error.localizedDescription)",
                    underlyingError: error)
            }
            state.written += Int64(data.count)
            // Every byte on disk counts for a resume, as long as the validator is known.
            state.offset = state.written
            return TransferProgress(completedBytes: state.written, totalBytes: state.total)
        }
    }

    func close(attempt: Int, error: NetworkError?) -> NetworkError? {
        state.withLock { state -> NetworkError? in
            closeHandle(&state)
            if error == nil, let reason = state.unusableRange {
                return NetworkError(
                    .transport, failureReason: "The download cannot be completed: the server sent \(reason).",
                    underlyingError: URLError(.badServerResponse))
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
        try manager.createDirectory(at: partialURL.deletingLastPathComponent(), withIntermediateDirectories: true)
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
                    failureReason: "Cannot move the download to \(destination.path): \(reason); \(error.localizedDescription)",
                    underlyingError: error)
            }
        }
        state.isComplete = true
        state.offset = 0
        return nil
    }

    private static func validator(of response: HTTPURLResponse) -> String? {
        if let etag = response.value(forHTTPHeaderField: "ETag"), !etag.hasPrefix("W/") {
            return etag
        }
        return response.value(forHTTPHeaderField: "Last-Modified")
    }
}

/// A parsed `Content-Range: bytes first-last/complete` header.
struct ContentRange: Equatable, Sendable {
    let first: Int64
    let last: Int64
    let completeLength: Int64?

    init?(_ header: String?) {
        guard let header, header.hasPrefix("bytes ") else { return nil }
        let spec = header.dropFirst("bytes ".count).split(separator: "/", maxSplits: 1)
        guard spec.count == 2 else { return nil }
        let bounds = spec[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]), first <= last else {
            return nil
        }
        self.first = first
        self.last = last
        self.completeLength = spec[1] == "*" ? nil : Int64(spec[1])
        if spec[1] != "*", completeLength == nil { return nil }
    }
}
