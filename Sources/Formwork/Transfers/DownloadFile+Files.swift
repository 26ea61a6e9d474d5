import Foundation

// The partial file: where it goes, opening, dropping, and the final move. Called with the
// download's state locked.
extension DownloadFile {
    /// Opens the partial file (choosing and creating it first if needed), cut to `bytes` bytes,
    /// for appending.
    func openPartial(_ state: inout State, keeping bytes: Int64) throws -> FileHandle {
        let manager = FileManager.default
        let url = partialLocation(&state)
        if !manager.fileExists(atPath: url.path) {
            guard manager.createFile(atPath: url.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
            }
        }
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: UInt64(bytes))
        try handle.seek(toOffset: UInt64(bytes))
        return handle
    }

    /// The partial file's URL: the one already in use while its folder exists, else a new one next
    /// to the destination when that folder exists and can be written (created first when the
    /// form's options ask for it), else in the temporary directory. Never creates a folder the
    /// form did not ask for.
    private func partialLocation(_ state: inout State) -> URL {
        if let url = state.partialURL,
            DestinationFacts.item(at: url.deletingLastPathComponent().path) == .directory
        {
            return url
        }
        let folder = destination.deletingLastPathComponent()
        var facts = DestinationFacts.read(for: destination)
        if facts.parent == .nothing, options.contains(.createIntermediateDirectories),
            (try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)) != nil
        {
            facts = DestinationFacts.read(for: destination)
        }
        let besideDestination = facts.parent == .directory && facts.parentIsWritable
        let url = DestinationMove.partialFile(
            for: destination, in: besideDestination ? folder : FileManager.default.temporaryDirectory)
        state.partialURL = url
        return url
    }

    func closeHandle(_ state: inout State) {
        try? state.handle?.close()
        state.handle = nil
    }

    /// Deletes the partial file's bytes: nothing kept, nothing to resume.
    func resetPartial(_ state: inout State) {
        if let url = state.partialURL {
            try? FileManager.default.removeItem(at: url)
        }
        state.offset = 0
        state.written = 0
        state.validator = nil
    }

    /// Puts the finished partial file at the destination. On failure nothing at the destination
    /// changed and the partial file stays, complete, for a resume to another destination.
    func finish(_ state: inout State) -> NetworkError? {
        guard !state.isComplete else { return nil }
        state.total = state.total ?? state.written
        let partial: URL
        do {
            // A body-less success (e.g. an empty 200 never opened the file) is an empty file.
            try openPartial(&state, keeping: state.written).close()
            partial = partialLocation(&state)
        } catch {
            return NetworkError(
                .fileOperationFailed,
                failureReason: "Cannot create the downloaded file for \(destination.path): \(error)",
                underlyingError: error)
        }
        do {
            try DestinationMove.perform(partial, to: destination, options: options)
        } catch {
            let kept =
                state.validator == nil
                ? "the server gave no validator to resume it with, so the download was deleted"
                : "the downloaded file is kept at \(partial.path): resume from the request's resumeData to put it at another destination"
            return NetworkError(
                .fileOperationFailed,
                failureReason:
                    "The download could not be put at \(destination.path): \(error.explanation). Nothing there was changed; \(kept).",
                underlyingError: error)
        }
        state.isComplete = true
        state.offset = 0
        return nil
    }
}
