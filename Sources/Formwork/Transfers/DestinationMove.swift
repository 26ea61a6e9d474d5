import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a finished download could not be put at its destination. Whatever was there is unchanged,
/// and the downloaded file is still where it was.
enum DestinationMoveFailure: Error, Equatable, Sendable {
    /// The rules refused the move (see ``DestinationPlan``).
    case refused(DestinationRefusal)
    /// The file system failed a step; the text says which and why.
    case failed(String)

    /// Why, as the end of a sentence.
    var explanation: String {
        switch self {
        case .refused(let refusal): refusal.explanation
        case .failed(let reason): reason
        }
    }
}

/// Puts a finished download at its destination as ``DestinationPlan`` allows, and never any other
/// way: a file is replaced only with `rename(2)` (atomic: the old file or the new one is there at
/// every moment), a move that must not replace anything uses `link(2)` (which fails rather than
/// overwrite), and a folder is never removed.
enum DestinationMove {
    /// The name of a download's working file in `folder`: hidden, and unique per download, e.g.
    /// `.report.pdf.1a2b3c4d.formwork-partial`.
    /// - Parameters:
    ///   - destination: The download's destination.
    ///   - folder: Where the working file goes.
    /// - Returns: The working file's URL.
    static func partialFile(for destination: URL, in folder: URL) -> URL {
        folder.appendingPathComponent(
            ".\(destination.lastPathComponent).\(UUID().uuidString.prefix(8)).formwork-partial")
    }

    /// Moves `file` to `destination`.
    /// - Parameters:
    ///   - file: The finished download (removed once it is in place).
    ///   - destination: Where it goes.
    ///   - options: The form's options.
    /// - Throws: ``DestinationMoveFailure``; then nothing at the destination changed and `file` is
    ///   still there.
    static func perform(_ file: URL, to destination: URL, options: DownloadDestinationOptions)
        throws(DestinationMoveFailure)
    {
        switch DestinationPlan.decide(DestinationFacts.read(for: destination), options: options) {
        case .refuse(let refusal):
            throw .refused(refusal)
        case .place(let createParent, let replacesFile):
            if createParent {
                do {
                    try FileManager.default.createDirectory(
                        at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
                } catch {
                    throw .failed("its folder could not be created (\(error.localizedDescription))")
                }
            }
            try place(file.path, at: destination.path, replacing: replacesFile, mayCopy: true)
        }
    }

    /// Gives `source` the name `target`: `rename` when a file there may be replaced, else `link`
    /// (then `unlink` of the old name). Across volumes, copies next to the target first.
    private static func place(_ source: String, at target: String, replacing: Bool, mayCopy: Bool)
        throws(DestinationMoveFailure)
    {
        if replacing ? rename(source, target) == 0 : link(source, target) == 0 {
            if !replacing { unlink(source) }
            return
        }
        let code = errno
        switch code {
        case EXDEV where mayCopy:
            try copyThenPlace(source, at: target, replacing: replacing)
        case EEXIST, EISDIR, ENOTEMPTY:
            // Something appeared at the destination since the facts were read: keep it.
            throw .refused(
                DestinationFacts.item(at: target) == .directory ? .destinationIsDirectory : .fileExists)
        case EPERM, ENOTSUP, EOPNOTSUPP, ENOSYS, EMLINK:
            // Without `replacing`, a file system without hard links: rename, having checked once
            // more that nothing is there (the one case where a file created in between could be
            // replaced).
            guard !replacing else { throw failure(code) }
            guard DestinationFacts.item(at: target) == .nothing else { throw .refused(.fileExists) }
            try place(source, at: target, replacing: true, mayCopy: mayCopy)
        default:
            throw failure(code)
        }
    }

    private static func failure(_ code: Int32) -> DestinationMoveFailure {
        .failed("it could not be moved there (\(String(cString: strerror(code))))")
    }

    /// The working file is on another volume: copy it next to the target (same volume), place the
    /// copy, then remove the original. A failed step removes the copy and keeps the original.
    private static func copyThenPlace(_ source: String, at target: String, replacing: Bool)
        throws(DestinationMoveFailure)
    {
        let targetURL = URL(fileURLWithPath: target)
        let copy = partialFile(for: targetURL, in: targetURL.deletingLastPathComponent()).path
        do {
            try FileManager.default.copyItem(atPath: source, toPath: copy)
        } catch {
            try? FileManager.default.removeItem(atPath: copy)
            throw .failed("it could not be copied to that volume (\(error.localizedDescription))")
        }
        do {
            try place(copy, at: target, replacing: replacing, mayCopy: false)
        } catch {
            try? FileManager.default.removeItem(atPath: copy)
            throw error
        }
        try? FileManager.default.removeItem(atPath: source)
    }
}

extension DestinationFacts {
    /// Reads the facts for `destination` from the file system.
    /// - Parameter destination: A download's destination.
    /// - Returns: What is there and at its folder.
    static func read(for destination: URL) -> DestinationFacts {
        let folder = destination.deletingLastPathComponent().path
        let parent = item(at: folder)
        return DestinationFacts(
            destination: item(at: destination.path), parent: parent,
            parentIsWritable: parent == .directory && access(folder, W_OK | X_OK) == 0)
    }

    /// What is at `path`: symbolic links are followed to tell folders from files; a dangling link
    /// counts as a file.
    static func item(at path: String) -> Item {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            return isDirectory.boolValue ? .directory : .file
        }
        // `fileExists` follows links: a link to nothing is still something at that path.
        return (try? FileManager.default.attributesOfItem(atPath: path)) == nil ? .nothing : .file
    }
}
