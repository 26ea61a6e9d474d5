import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The part of a `/cache/resource` body these tests read.
private struct StoredResource: Decodable {
    let id: String
}

/// Crash safety with a real kill: a child process fills a disk cache and is killed (SIGKILL) while
/// its writes are under way; a fresh cache on the same directory serves only whole entries.
@Suite("HTTP cache crash safety")
struct HTTPCacheCrashTests {
    /// `CacheWriter` beside the running test executable (`swift build --build-tests` builds it).
    private func writerExecutable() throws -> URL {
        let directory = Bundle.main.executableURL?.deletingLastPathComponent()
        let writer = try #require(directory?.appendingPathComponent("CacheWriter"))
        try #require(FileManager.default.isExecutableFile(atPath: writer.path), "build CacheWriter first")
        return writer
    }

    @Test("A child killed mid-write leaves nothing that is served: every entry read back is whole")
    func killedWriter() async throws {
        let scratch = try ScratchDirectory("cache-kill")
        defer { scratch.remove() }
        let run = UUID().uuidString
        // 256 KiB bodies: each file takes a while to write, so the kill lands mid-write.
        let prefix = try await DemoServer.url("/cache/resource?cc=max-age=600&pad=262144&id=kill-\(run)-")
        let process = Process()
        process.executableURL = try writerExecutable()
        process.arguments = [scratch.url.path, prefix]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Wait (bounded) until the child has stored 20 responses, then kill it without warning.
        let stored = await withCheckedContinuation { (continuation: CheckedContinuation<Int, Never>) in
            Thread {
                var text = ""
                let handle = output.fileHandleForReading
                let deadline = Date().addingTimeInterval(120)
                while Date() < deadline {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    text += String(decoding: chunk, as: UTF8.self)
                    if text.components(separatedBy: "\n").filter({ $0.hasPrefix("stored") }).count >= 20 {
                        break
                    }
                }
                continuation.resume(
                    returning: text.components(separatedBy: "\n").filter { $0.hasPrefix("stored") }.count)
            }.start()
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(stored >= 20)
        #expect(process.terminationReason == .uncaughtSignal)

        let cache = try HTTPCache(directory: scratch.url, diskCapacity: 1 << 30)
        await cache.waitForPendingWrites()
        let leftovers = try scratch.contents().filter { $0.hasSuffix(HTTPCache.temporaryExtension) }
        #expect(leftovers.isEmpty)
        var served = 0
        for index in 0..<(stored + 5) {
            let address = prefix + String(index)
            let key = CacheKey(method: "GET", url: address, credential: nil)
            guard let entry = await cache.entry(for: key, request: [:]) else { continue }
            served += 1
            let decoded = try JSONDecoder().decode(StoredResource.self, from: entry.body)
            #expect(decoded.id == "kill-\(run)-\(index)")
            #expect(entry.body.count > 262_144)
        }
        #expect(served >= 1)
        // Whatever is left on disk now is whole.
        for name in try scratch.contents() {
            #expect(CacheEntryFile.decode(try Data(contentsOf: scratch.file(name))) != nil, "\(name)")
        }
    }
}
