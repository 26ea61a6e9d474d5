import Foundation
import Testing

/// The README's quick start and the Getting started article hold the same text as this target's
/// Swift files, so the code a new user copies is the code compiled here with an app's settings.
@Suite("Docs' first code is this target's code, verbatim")
struct DocsInSyncTests {
    /// A Swift block of a document, marked `<!-- snippet: NAME -->` on the line before its fence.
    struct MarkedBlock {
        let document: String
        let name: String
        let code: String
    }

    /// The repository's root, found from this file's path: `<root>/Tests/MainActorAppTests/…`.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // MainActorAppTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// The documents whose marked blocks must match.
    static let documents = ["README.md", "Sources/Formwork/Formwork.docc/GettingStarted.md"]
    /// This target's files that hold the regions.
    static let swiftFiles = ["ReadmeQuickStart.swift", "GettingStartedCode.swift"]

    static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// Every marked Swift block of `text`, in order.
    static func markedBlocks(in text: String, document: String) throws -> [MarkedBlock] {
        let lines = text.components(separatedBy: "\n")
        var blocks: [MarkedBlock] = []
        var index = 0
        while index < lines.count {
            let line = lines[index].trimmingCharacters(in: .whitespaces)
            index += 1
            guard line.hasPrefix("<!-- snippet:"), line.hasSuffix("-->") else { continue }
            let name = line.dropFirst("<!-- snippet:".count).dropLast("-->".count)
                .trimmingCharacters(in: .whitespaces)
            try #require(
                index < lines.count && lines[index] == "```swift",
                "\(document): the marker \(name) must be followed by a ```swift fence")
            let start = index + 1
            guard let end = lines[start...].firstIndex(of: "```") else {
                Issue.record("\(document): the block \(name) has no closing fence")
                return blocks
            }
            blocks.append(
                MarkedBlock(
                    document: document, name: name, code: lines[start..<end].joined(separator: "\n")))
            index = end + 1
        }
        return blocks
    }

    /// The regions of `text` between `// snippet: NAME` and `// snippet end`, by name.
    static func regions(in text: String, file: String) throws -> [String: String] {
        var regions: [String: String] = [:]
        var current: (name: String, lines: [String])?
        for line in text.components(separatedBy: "\n") {
            if line == "// snippet end" {
                let region = try #require(current, "\(file): `// snippet end` without a start")
                #expect(regions[region.name] == nil, "\(file): two regions named \(region.name)")
                regions[region.name] = region.lines.joined(separator: "\n")
                current = nil
            } else if line.hasPrefix("// snippet: ") {
                #expect(current == nil, "\(file): a region starts inside \(current?.name ?? "")")
                current = (String(line.dropFirst("// snippet: ".count)), [])
            } else if current != nil {
                current?.lines.append(line)
            }
        }
        #expect(current == nil, "\(file): the region \(current?.name ?? "") never ends")
        return regions
    }

    static func allRegions() throws -> [String: String] {
        var all: [String: String] = [:]
        for file in swiftFiles {
            let found = try regions(in: try read("Tests/MainActorAppTests/\(file)"), file: file)
            for (name, code) in found {
                #expect(all[name] == nil, "two files hold the region \(name)")
                all[name] = code
            }
        }
        return all
    }

    @Test("every marked block of the README and Getting started equals its Swift region")
    func blocksMatch() throws {
        let regions = try Self.allRegions()
        for document in Self.documents {
            let blocks = try Self.markedBlocks(in: try Self.read(document), document: document)
            #expect(!blocks.isEmpty, "\(document) has no marked snippet")
            for block in blocks {
                let region = try #require(
                    regions[block.name], "\(document): no Swift region named \(block.name)")
                #expect(
                    block.code == region,
                    "\(document): the block \(block.name) differs from the target's code")
            }
        }
    }

    @Test("every Swift region is shown in a document, and the shared one in both")
    func regionsShown() throws {
        let regions = try Self.allRegions()
        var shown: [String: Set<String>] = [:]
        for document in Self.documents {
            for block in try Self.markedBlocks(in: try Self.read(document), document: document) {
                shown[block.name, default: []].insert(document)
            }
        }
        #expect(Set(shown.keys) == Set(regions.keys))
        #expect(shown["weather"] == Set(Self.documents))
    }

    @Test("a changed block is caught")
    func changeCaught() throws {
        let text = "<!-- snippet: x -->\n```swift\nlet a = 1\n```\n"
        let blocks = try Self.markedBlocks(in: text, document: "test")
        let regions = try Self.regions(in: "// snippet: x\nlet a = 2\n// snippet end\n", file: "test")
        #expect(blocks.map(\.name) == ["x"])
        #expect(blocks.first?.code == "let a = 1")
        #expect(regions["x"] == "let a = 2")
        #expect(blocks.first?.code != regions["x"])
    }
}
