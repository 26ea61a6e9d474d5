import Foundation
import Testing

@testable import Formwork

@Suite struct DestinationPlanTests {
    typealias Item = DestinationFacts.Item

    private func plan(
        _ destination: Item, parent: Item = .directory, writable: Bool = true,
        _ options: DownloadDestinationOptions = []
    ) -> DestinationPlan {
        DestinationPlan.decide(
            DestinationFacts(destination: destination, parent: parent, parentIsWritable: writable),
            options: options)
    }

    @Test func aFreeDestinationInAWritableFolderIsPlacedWithoutReplacing() {
        for options: DownloadDestinationOptions in [[], .removePreviousFile, .createIntermediateDirectories] {
            #expect(plan(.nothing, options) == .place(createParent: false, replacesFile: false))
        }
    }

    @Test(arguments: [
        [], DownloadDestinationOptions.removePreviousFile, .createIntermediateDirectories,
        [.removePreviousFile, .createIntermediateDirectories],
    ])
    func aFolderIsNeverReplaced(options: DownloadDestinationOptions) {
        #expect(plan(.directory, options) == .refuse(.destinationIsDirectory))
        #expect(plan(.directory, writable: false, options) == .refuse(.destinationIsDirectory))
    }

    @Test func anExistingFileIsReplacedOnlyWithRemovePreviousFile() {
        #expect(plan(.file) == .refuse(.fileExists))
        #expect(plan(.file, .createIntermediateDirectories) == .refuse(.fileExists))
        #expect(plan(.file, .removePreviousFile) == .place(createParent: false, replacesFile: true))
        // Replacing still needs a folder that can be written.
        #expect(plan(.file, writable: false, .removePreviousFile) == .refuse(.parentNotWritable))
    }

    @Test func aMissingFolderIsCreatedOnlyWhenAsked() {
        #expect(plan(.nothing, parent: .nothing) == .refuse(.parentMissing))
        #expect(plan(.nothing, parent: .nothing, .removePreviousFile) == .refuse(.parentMissing))
        #expect(
            plan(.nothing, parent: .nothing, .createIntermediateDirectories)
                == .place(createParent: true, replacesFile: false))
    }

    @Test(arguments: [
        [], DownloadDestinationOptions.removePreviousFile, .createIntermediateDirectories,
        [.removePreviousFile, .createIntermediateDirectories],
    ])
    func aFolderThatIsAFileOrReadOnlyIsRefused(options: DownloadDestinationOptions) {
        #expect(plan(.nothing, parent: .file, writable: false, options) == .refuse(.parentIsNotADirectory))
        #expect(plan(.nothing, writable: false, options) == .refuse(.parentNotWritable))
    }

    @Test func everyRefusalExplainsItself() {
        let refusals: [DestinationRefusal] = [
            .destinationIsDirectory, .fileExists, .parentMissing, .parentIsNotADirectory, .parentNotWritable,
        ]
        #expect(Set(refusals.map(\.explanation)).count == refusals.count)
        #expect(DestinationRefusal.fileExists.explanation.contains(".removePreviousFile"))
        #expect(DestinationRefusal.parentMissing.explanation.contains(".createIntermediateDirectories"))
    }
}

/// The file-system half: facts read from disk, and moves that never lose what is there.
@Suite struct DestinationMoveTests {
    @Test func factsTellFilesFoldersLinksAndNothingApart() throws {
        let scratch = try ScratchDirectory("facts")
        defer { scratch.remove() }
        try scratch.write(Data("x".utf8), to: "file")
        try FileManager.default.createDirectory(
            at: scratch.file("folder"), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(
            at: scratch.file("to-folder"), withDestinationURL: scratch.file("folder"))
        try FileManager.default.createSymbolicLink(
            at: scratch.file("dangling"), withDestinationURL: scratch.file("none"))
        #expect(DestinationFacts.item(at: scratch.file("file").path) == .file)
        #expect(DestinationFacts.item(at: scratch.file("folder").path) == .directory)
        #expect(DestinationFacts.item(at: scratch.file("to-folder").path) == .directory)
        #expect(DestinationFacts.item(at: scratch.file("dangling").path) == .file)
        #expect(DestinationFacts.item(at: scratch.file("none").path) == .nothing)
        #expect(
            DestinationFacts.read(for: scratch.file("file/below"))
                == DestinationFacts(destination: .nothing, parent: .file, parentIsWritable: false))
        #expect(
            DestinationFacts.read(for: scratch.file("a/b"))
                == DestinationFacts(destination: .nothing, parent: .nothing, parentIsWritable: false))
        #expect(
            DestinationFacts.read(for: scratch.file("file"))
                == DestinationFacts(destination: .file, parent: .directory, parentIsWritable: true))
    }

    @Test func aMoveThatMustNotReplaceKeepsAFileThatAppearedMeanwhile() throws {
        // The plan saw nothing at the destination; a file appears before the move: it stays.
        let scratch = try ScratchDirectory("race")
        defer { scratch.remove() }
        let partial = try scratch.write(Data("new".utf8), to: ".partial")
        let destination = scratch.file("target")
        #expect(
            DestinationPlan.decide(DestinationFacts.read(for: destination), options: [])
                == .place(createParent: false, replacesFile: false))
        try scratch.write(Data("theirs".utf8), to: "target")
        #expect(throws: DestinationMoveFailure.refused(.fileExists)) {
            try DestinationMove.perform(partial, to: destination, options: [])
        }
        #expect(try Data(contentsOf: destination) == Data("theirs".utf8))
        #expect(try Data(contentsOf: partial) == Data("new".utf8))
    }

    @Test func aReplacementIsARenameNotAnOverwriteInPlace() throws {
        // A reader that opened the old file still reads the old bytes: the old file was never
        // truncated or written, only unlinked when the new one took its name.
        let scratch = try ScratchDirectory("rename")
        defer { scratch.remove() }
        let destination = try scratch.write(Data("old file".utf8), to: "target")
        let reader = try FileHandle(forReadingFrom: destination)
        defer { try? reader.close() }
        let partial = try scratch.write(Data("the new file".utf8), to: ".partial")
        try DestinationMove.perform(partial, to: destination, options: .removePreviousFile)
        #expect(try Data(contentsOf: destination) == Data("the new file".utf8))
        #expect(try reader.readToEnd() == Data("old file".utf8))
        #expect(try scratch.contents() == ["target"])
    }
}
