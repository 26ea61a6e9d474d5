import Foundation

/// What the file system holds at a download's destination and at its folder: the facts the final
/// move depends on, read just before it.
struct DestinationFacts: Equatable, Sendable {
    /// What is at a path.
    enum Item: Equatable, Sendable {
        /// Nothing.
        case nothing
        /// A file, or anything else that is not a folder (a symbolic link to a file, a dangling
        /// link, a pipe).
        case file
        /// A folder, or a symbolic link to one.
        case directory
    }

    /// What is at the destination itself.
    var destination: Item
    /// What is at the destination's folder.
    var parent: Item
    /// Whether this process may create files in that folder.
    var parentIsWritable: Bool
}

/// Why a finished download was not put at its destination. Nothing there was changed; the
/// downloaded file is kept for a resume.
enum DestinationRefusal: Error, Equatable, Sendable {
    /// The destination is a folder (never replaced).
    case destinationIsDirectory
    /// A file is there and the form did not ask for ``DownloadDestinationOptions/removePreviousFile``.
    case fileExists
    /// The folder does not exist and the form did not ask for
    /// ``DownloadDestinationOptions/createIntermediateDirectories``.
    case parentMissing
    /// The destination's "folder" is a file.
    case parentIsNotADirectory
    /// The folder does not let this process create files.
    case parentNotWritable

    /// Why, in a sentence that ends the failure reason.
    var explanation: String {
        switch self {
        case .destinationIsDirectory: "it is a folder"
        case .fileExists:
            "a file is already there (set the form's destinationOptions to .removePreviousFile to replace it)"
        case .parentMissing:
            "its folder does not exist (set the form's destinationOptions to .createIntermediateDirectories to create it)"
        case .parentIsNotADirectory: "its folder is a file"
        case .parentNotWritable: "its folder cannot be written"
        }
    }
}

/// The rules for putting a finished download at its destination, as one pure decision: it takes
/// the file-system facts and the form's options and says what to do. It never allows anything
/// that could lose what is already there.
enum DestinationPlan: Equatable, Sendable {
    /// Put the file in place. `createParent`: create the missing folder first. `replacesFile`: a
    /// file is there and may be replaced atomically; when `false` the move must not replace
    /// anything (a file that appears meanwhile is kept and the move refused).
    case place(createParent: Bool, replacesFile: Bool)
    /// Leave everything as it is and fail.
    case refuse(DestinationRefusal)

    /// Decides what the final move of a download does.
    /// - Parameters:
    ///   - facts: What is at the destination and its folder.
    ///   - options: The form's ``DownloadFormable/destinationOptions``.
    /// - Returns: The plan.
    static func decide(_ facts: DestinationFacts, options: DownloadDestinationOptions) -> DestinationPlan {
        switch facts.destination {
        case .directory:
            return .refuse(.destinationIsDirectory)
        case .file where !options.contains(.removePreviousFile):
            return .refuse(.fileExists)
        case .file, .nothing:
            break
        }
        switch facts.parent {
        case .nothing:
            guard options.contains(.createIntermediateDirectories) else { return .refuse(.parentMissing) }
            return .place(createParent: true, replacesFile: false)
        case .file:
            return .refuse(.parentIsNotADirectory)
        case .directory:
            guard facts.parentIsWritable else { return .refuse(.parentNotWritable) }
            return .place(createParent: false, replacesFile: facts.destination == .file)
        }
    }
}
