import AsyncHTTPClient
import ExampleSupport
import Formwork
import FormworkAsyncHTTPClient
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The download part of ``Transports``: `/static/{size}` (the server's file sent with `sendfile`) to a file through each of the four
/// sides, without progress observers on any of them — raw `download(for:)`, Formwork over
/// `URLSession`, AsyncHTTPClient's own `FileDownloadDelegate`, Formwork over
/// ``AsyncHTTPClientTransport``. Interleaved rounds (the side that goes first rotates); reports
/// the median time, MB/s, CPU per download and the worst peak RSS growth, and checks every file's
/// size and content outside the timing.
struct TransportDownloads {
    /// One download's measurements.
    struct Sample {
        let seconds: Double
        let cpuSeconds: Double
        let growth: Int64
    }

    let base: String
    let options: Options
    let directory: URL

    func run(clients: Transports.Clients, report: Report) async {
        let size = options.size
        report.section(
            "T3. Download \(formatBytes(size))\(options.network) to a file, no progress observer "
                + "(\(options.transferRounds) interleaved rounds, median time, worst peak RSS growth)")
        do {
            try await Files.prepareDownload(base: base, size: size)
        } catch {
            report.fail("transport download: \(error)")
            return
        }
        var samples: [Transports.Client: [Sample]] = [:]
        let sides = Transports.Client.allCases
        for round in 0..<options.transferRounds {
            for step in 0..<sides.count {
                let client = sides[(step + round) % sides.count]
                do {
                    samples[client, default: []].append(
                        try await download(client, size: size, clients: clients))
                } catch {
                    report.fail("\(client.label) download, round \(round + 1): \(error)")
                }
            }
        }
        guard sides.allSatisfy({ samples[$0]?.isEmpty == false }) else { return }
        let time = { (client: Transports.Client) in samples[client, default: []].map(\.seconds).median }
        let growth = { (client: Transports.Client) in samples[client, default: []].map(\.growth).max() ?? 0 }
        for client in sides {
            let cpu = samples[client, default: []].map(\.cpuSeconds).median
            report.note(
                pad(client.label, 32) + pad(seconds(time(client)), 10, left: true)
                    + pad(String(format: "%.1f MB/s", Double(size) / time(client) / 1e6), 14, left: true)
                    + pad(String(format: "CPU %.2f s", cpu), 14, left: true)
                    + "   peak RSS +\(formatBytes(growth(client)))")
        }
        // The target over AsyncHTTPClient; the one against bare download(for:) on loopback.
        report.ratio(
            "MB/s, Formwork over AsyncHTTPClient / bare",
            time(.asyncHTTPClient) / time(.formworkAsyncHTTPClient), target: 0.97)
        report.ratio(
            "MB/s, Formwork over URLSession / raw download(for:)",
            time(.rawURLSession) / time(.formworkURLSession), target: options.activeLink == nil ? 0.95 : 0.97)
        // Under 16 MiB for 1 GiB (AsyncHTTPClient alone streams it in under 1 MiB).
        let rssTarget: Int64 = 16 << 20
        let formworkGrowth = growth(.formworkAsyncHTTPClient)
        report.note(
            pad("peak RSS growth, Formwork over AsyncHTTPClient", 56) + formatBytes(formworkGrowth)
                + "   target < \(formatBytes(rssTarget)) for 1 GiB   "
                + (formworkGrowth < rssTarget ? "PASS" : "ABOVE TARGET"))
        for client in [Transports.Client.formworkURLSession, .formworkAsyncHTTPClient] {
            report.limit("\(client.label) RSS", value: growth(client), below: 64 << 20)
        }
    }

    private func download(_ client: Transports.Client, size: Int64, clients: Transports.Clients) async throws
        -> Sample
    {
        let address = base + Files.downloadPath(size: size)
        guard let url = URL(string: address) else { throw BenchmarkFailure("bad URL \(address)") }
        let destination = Files.scratch("transport-download", in: directory)
        defer { try? FileManager.default.removeItem(at: destination) }
        let temporaryFiles = Files.downloadTempFiles()
        defer { Files.removeDownloadTempFiles(except: temporaryFiles) }
        let mark = PeakMemory.mark()
        let cpu = ProcessCPU.usage()
        let clock = Stopwatch()
        switch client {
        case .rawURLSession:
            let (file, response) = try await clients.urlSession.download(for: URLRequest(url: url))
            try FileManager.default.moveItem(at: file, to: destination)
            try Downloads.checkStatus(response)
        case .formworkURLSession, .formworkAsyncHTTPClient:
            let session = client == .formworkURLSession ? clients.overURLSession : clients.overAsyncHTTPClient
            _ = try await session.download(Downloads.FileForm(url: address, destination: destination))
                .fileURL()
        case .asyncHTTPClient:
            let delegate = try FileDownloadDelegate(path: destination.path)
            let progress = try await clients.asyncHTTPClient.execute(
                request: HTTPClient.Request(url: url), delegate: delegate
            ).get()
            guard progress.head.status == .ok else {
                throw BenchmarkFailure("bare AsyncHTTPClient: status \(progress.head.status.code)")
            }
        }
        let sample = Sample(
            seconds: clock.seconds,
            cpuSeconds: Double(ProcessCPU.usage().microseconds - cpu.microseconds) / 1e6,
            growth: PeakMemory.growth(since: mark))
        let received = Files.size(of: destination)
        guard received == size else {
            throw BenchmarkFailure("\(client.label): \(received) bytes on disk, expected \(size)")
        }
        guard try Files.matchesServerContent(destination, size: size) else {
            throw BenchmarkFailure("\(client.label): the content differs from the server's file")
        }
        return sample
    }
}
