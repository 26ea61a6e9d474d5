import ExampleSupport
import Formwork
import Foundation

/// Checks that Formwork moves large bodies in constant memory: downloads a file and uploads a file
/// as multipart (1 GiB each by default) through the demo server and reports peak RSS. Fails when
/// the peak grows more than the limit (64 MiB by default) over the process's RSS before the
/// transfer (Foundation, URLSession and libcurl's own baseline).
///
/// The download modes are the server behaviours a download must survive in bounded memory:
/// `download` (the server honours `Range`), `download-rest` (every range is answered with the
/// whole rest of the file as 206), `download-ignore` (`Range` is ignored: 200 with the whole file)
/// and `download-chunked` (no `Content-Length`). `--link rtt=40ms,rate=400mbit` puts a
/// `LinkProxy` between Formwork and the server.
///
///     swift run --package-path Examples MemoryCheck download [--size BYTES] [--limit-mib 64]
///     swift run --package-path Examples MemoryCheck download-rest|download-ignore|download-chunked
///     swift run --package-path Examples MemoryCheck upload [--size BYTES] [--limit-mib 64]
@main
struct MemoryCheck {
    struct FileForm: DownloadFormable {
        let url: String
        let destination: URL
    }

    struct VideoUpload: UploadMultipartFormable {
        let url: String
        let multipartFormData: MultipartFormData
        var encodingMemoryThreshold: Int { 1_000_000 }
    }

    struct UploadReport: Decodable, Sendable {
        let bytes: Int64
    }

    /// The download modes: the server behaviour each asks `/files` for, as its query.
    static let downloadModes: KeyValuePairs<String, String> = [
        "download": "",
        "download-rest": "?ranges=rest",
        "download-ignore": "?ranges=ignore",
        "download-chunked": "?chunked=1",
    ]

    static let usage = """
        usage: MemoryCheck download|download-rest|download-ignore|download-chunked|upload
                           [--size BYTES] [--limit-mib MIB] [--link rtt=40ms,rate=400mbit]
               MemoryCheck stream [--seconds S] [--rate R] [--limit-mib MIB]
               MemoryCheck stream-flood [--events N] [--size B] [--pause-after K] [--pause S]
                                        [--per-event-ms M] [--transport urlsession|ahc] [--limit-mib MIB]
               MemoryCheck websocket-flood [--messages N] [--size B] [--pause-after K] [--pause S]
                                           [--limit-mib MIB]
               MemoryCheck requests [--count N] [--transport urlsession|ahc] [--limit-mib MIB]
               MemoryCheck soak [--count N] [--transport urlsession|ahc] [--limit-mib MIB]
               MemoryCheck sessions [--count N] [--transport urlsession|ahc] [--slack K]
        """

    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let mode = arguments.first ?? "download"
        if mode == "stream" { return await StreamMemory.run(arguments) }  // a long event stream
        // A fast stream and a slow reader, in bounded memory and without losing an event.
        if mode == "stream-flood" { return await StreamFloodMemory.run(arguments) }
        // A WebSocket flood and a reader that stalls, over the NIO WebSocket transport.
        if mode == "websocket-flood" { return await WebSocketFloodMemory.run(arguments) }
        // Finished requests are released: many small requests in constant memory.
        if mode == "requests" { return await RequestsMemory.run(arguments) }
        // Nothing of a cancelled, failed or shared request stays: a soak with cancels.
        if mode == "soak" { return await SoakMemory.run(arguments) }
        // Dropped and invalidated sessions give back their descriptors and threads.
        if mode == "sessions" { return await SessionsCheck.run(arguments) }
        let size = value(after: "--size", in: arguments).flatMap(Int64.init) ?? 1 << 30
        let limit = (value(after: "--limit-mib", in: arguments).flatMap(Int64.init) ?? 64) << 20
        let query = downloadModes.first { $0.key == mode }?.value
        guard query != nil || mode == "upload" else {
            print(usage)
            exit(2)
        }
        do {
            let link = try value(after: "--link", in: arguments).map(LinkSpec.init(parsing:))
            let server = try DemoServerProcess()
            let proxy = try link.map { try LinkProxyProcess(target: server.baseURL, link: $0) }
            let base = proxy?.baseURL ?? server.baseURL
            let before = peakResidentBytes()
            let started = Date()
            let moved: Int64
            if let query {
                moved = try await download(size: size, from: base, query: query)
            } else {
                moved = try await upload(size: size, to: base)
            }
            withExtendedLifetime((server, proxy)) {}
            let seconds = Date().timeIntervalSince(started)
            let peak = peakResidentBytes()
            let rate = Double(moved) / max(seconds, 0.001) / 1_048_576
            print(
                "MemoryCheck \(mode): moved \(formatBytes(moved)) in \(String(format: "%.2f", seconds)) s "
                    + "(\(String(format: "%.0f", rate)) MiB/s); peak RSS \(formatBytes(peak)) "
                    + "(\(formatBytes(before)) before the transfer, growth \(formatBytes(peak - before))); "
                    + "limit \(formatBytes(limit)) growth")
            guard moved == size else {
                print("MemoryCheck FAIL: moved \(moved) bytes, expected \(size)")
                exit(1)
            }
            guard peak - before < limit else {
                print("MemoryCheck FAIL: peak RSS grew by \(formatBytes(peak - before)), over the limit")
                exit(1)
            }
            print("MemoryCheck \(mode) OK")
        } catch {
            print("MemoryCheck FAIL: \(error)")
            exit(1)
        }
    }

    static func value(after flag: String, in arguments: [String]) -> String? {
        guard let index = arguments.firstIndex(of: flag), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }

    /// Prints a line at every tenth of the transfer, with the peak RSS so far.
    static func printProgress(of request: some Request, label: String) async {
        var reported = 0
        for await progress in request.progressUpdates {
            let tenth = Int((progress.fractionCompleted ?? 0) * 10)
            if tenth > reported {
                reported = tenth
                print("  \(label) \(tenth * 10) % (peak RSS \(formatBytes(peakResidentBytes())))")
            }
        }
    }

    static func download(size: Int64, from base: String, query: String) async throws -> Int64 {
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent(
            "memorycheck-\(UUID())")
        defer { try? FileManager.default.removeItem(at: destination) }
        let request = Session.default.download(
            FileForm(url: "\(base)/files/\(size)\(query)", destination: destination))
        await printProgress(of: request, label: "download")
        let file = try await request.fileURL()
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        return (attributes[.size] as? NSNumber)?.int64Value ?? -1
    }

    static func upload(size: Int64, to base: String) async throws -> Int64 {
        let source = FileManager.default.temporaryDirectory.appendingPathComponent(
            "memorycheck-\(UUID()).mp4")
        defer { try? FileManager.default.removeItem(at: source) }
        guard FileManager.default.createFile(atPath: source.path, contents: nil) else {
            throw DemoServerProcess.Failure(description: "cannot create \(source.path)")
        }
        let handle = try FileHandle(forWritingTo: source)
        let block = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        var written: Int64 = 0
        while written < size {
            let count = Int(min(Int64(block.count), size - written))
            try handle.write(contentsOf: block.prefix(count))
            written += Int64(count)
        }
        try handle.close()
        var form = MultipartFormData()
        form.append(Data("memory check".utf8), name: "title")
        form.append(source, name: "video")
        let request = Session.default.upload(
            VideoUpload(url: "\(base)/upload?md5=0", multipartFormData: form))
        await printProgress(of: request, label: "upload")
        struct Reply: Decodable, Sendable {
            struct Part: Decodable, Sendable { let bytes: Int64 }
            let parts: [Part]?
        }
        return try await request.decode(Reply.self).parts?.last?.bytes ?? -1
    }
}
