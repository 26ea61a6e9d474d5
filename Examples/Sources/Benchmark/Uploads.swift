import ExampleSupport
import Formwork
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One large multipart upload from a file, both ways: raw (the benchmark writes the multipart
/// body to a file itself, then `upload(for:fromFile:)`) against Formwork's
/// `UploadMultipartFormable` with a file part (which builds its body file the same way). The
/// timing covers building the body file and sending it, on both sides. The server hashes nothing
/// during the timed rounds (`md5=0`); one more upload per side afterwards checks the MD5 it
/// computes of the file part.
struct Uploads {
    /// What `/upload` answers.
    struct Reply: Decodable, Sendable {
        /// One multipart part as the server parsed it.
        struct Part: Decodable, Sendable {
            let name: String
            let fileName: String?
            let bytes: Int64
            let md5: String?
        }
        let bytes: Int64
        let contentLength: Int64?
        let parts: [Part]?
    }

    /// The Formwork form: a text field and the file.
    struct VideoUpload: UploadMultipartFormable {
        let url: String
        let file: URL
        var multipartFormData: MultipartFormData {
            var form = MultipartFormData()
            form.append(Data(Uploads.title.utf8), name: "title")
            form.append(file, name: "video", fileName: "source.bin", mimeType: "application/octet-stream")
            return form
        }
    }

    static let title = "Formwork benchmark upload"

    let base: String
    let options: Options
    let directory: URL

    func run(report: Report) async {
        let size = options.size
        report.section(
            "4. Multipart upload of a \(formatBytes(size)) file (\(options.transferRounds) interleaved rounds, "
                + "median time, worst peak RSS growth)")
        let source = Files.scratch("upload-source", in: directory)
        defer { try? FileManager.default.removeItem(at: source) }
        let raw = URLSession(configuration: .default)
        defer { raw.finishTasksAndInvalidate() }
        let session = Session()
        do {
            try Files.writeServerContent(to: source, size: size)
        } catch {
            report.fail("cannot write the upload source: \(error)")
            return
        }
        var rawSamples: [Downloads.Sample] = []
        var formworkSamples: [Downloads.Sample] = []
        for round in 0..<options.transferRounds {
            for formworkTurn in round.isMultiple(of: 2) ? [false, true] : [true, false] {
                do {
                    if formworkTurn {
                        formworkSamples.append(
                            try await timed { try await formwork(source, session, hashed: false) })
                    } else {
                        rawSamples.append(try await timed { try await rawUpload(source, raw, hashed: false) })
                    }
                } catch {
                    report.fail("\(formworkTurn ? "Formwork" : "raw") upload, round \(round + 1): \(error)")
                }
            }
        }
        guard !rawSamples.isEmpty, !formworkSamples.isEmpty else { return }
        let rawTime = rawSamples.map(\.seconds).median
        let formworkTime = formworkSamples.map(\.seconds).median
        let rawGrowth = rawSamples.map(\.growth).max() ?? 0
        let formworkGrowth = formworkSamples.map(\.growth).max() ?? 0
        for (label, time, growth) in [
            ("raw body file + upload(for:fromFile:)", rawTime, rawGrowth),
            ("Formwork UploadMultipartFormable", formworkTime, formworkGrowth),
        ] {
            report.note(
                pad(label, 38) + pad(seconds(time), 10, left: true)
                    + pad(String(format: "%.1f MiB/s", mebibytesPerSecond(size, time)), 15, left: true)
                    + "   peak RSS +\(formatBytes(growth))")
        }
        report.ratio("Formwork vs raw (no target; 1 = parity)", rawTime / formworkTime, target: 1.0)
        report.limit("Formwork peak RSS growth", value: formworkGrowth, below: 64 << 20)
        do {
            let rawMD5 = try await rawUpload(source, raw, hashed: true)
            let formworkMD5 = try await formwork(source, session, hashed: true)
            let equal = rawMD5 == formworkMD5 && rawMD5 != nil
            report.note("server MD5 of the file part: raw \(rawMD5 ?? "-"), Formwork \(formworkMD5 ?? "-")")
            report.check(equal, "the server saw different file parts from raw and Formwork")
        } catch {
            report.fail("hashed upload: \(error)")
        }
    }

    private func timed(_ body: () async throws -> String?) async throws -> Downloads.Sample {
        let mark = PeakMemory.mark()
        let clock = Stopwatch()
        _ = try await body()
        return Downloads.Sample(seconds: clock.seconds, growth: PeakMemory.growth(since: mark))
    }

    private func uploadURL(hashed: Bool) -> String {
        "\(base)/upload" + (hashed ? "" : "?md5=0")
    }

    /// Uploads through Formwork; returns the server's MD5 of the file part (when `hashed`).
    private func formwork(_ source: URL, _ session: Session, hashed: Bool) async throws -> String? {
        let form = VideoUpload(url: uploadURL(hashed: hashed), file: source)
        return try check(await session.upload(form).decode(Reply.self), bodyBytes: nil)
    }

    /// Writes the multipart body to a file, uploads it with `upload(for:fromFile:)` and returns
    /// the server's MD5 of the file part (when `hashed`).
    private func rawUpload(_ source: URL, _ raw: URLSession, hashed: Bool) async throws -> String? {
        let body = Files.scratch("upload-body", in: directory)
        defer { try? FileManager.default.removeItem(at: body) }
        let boundary = "benchmark-\(UUID().uuidString)"
        try Self.writeMultipartBody(to: body, boundary: boundary, file: source)
        guard let url = URL(string: uploadURL(hashed: hashed)) else {
            throw BenchmarkFailure("bad URL")
        }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("multipart/form-data; boundary=\(boundary)", forHTTPHeaderField: "Content-Type")
        let (data, response) = try await raw.upload(for: request, fromFile: body)
        try Downloads.checkStatus(response)
        return try check(try JSONDecoder().decode(Reply.self, from: data), bodyBytes: Files.size(of: body))
    }

    /// Checks the server's reply: the whole body, a title part and the file part of the right sizes.
    private func check(_ reply: Reply, bodyBytes: Int64?) throws -> String? {
        guard let parts = reply.parts, parts.count == 2 else {
            throw BenchmarkFailure("expected 2 parts, got \(reply.parts?.count ?? 0)")
        }
        guard parts[0].name == "title", parts[0].bytes == Int64(Self.title.utf8.count) else {
            throw BenchmarkFailure("the title part is wrong: \(parts[0])")
        }
        guard parts[1].name == "video", parts[1].fileName == "source.bin", parts[1].bytes == options.size
        else {
            throw BenchmarkFailure("the file part is wrong: \(parts[1])")
        }
        guard reply.contentLength == reply.bytes, bodyBytes.map({ $0 == reply.bytes }) ?? true else {
            throw BenchmarkFailure(
                "body of \(reply.bytes) bytes, Content-Length \(reply.contentLength ?? -1)")
        }
        return parts[1].md5
    }

    /// The raw client's multipart body: a text field, then the file copied in 1 MiB chunks.
    static func writeMultipartBody(to url: URL, boundary: String, file: URL) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        let output = try FileHandle(forWritingTo: url)
        defer { try? output.close() }
        let input = try FileHandle(forReadingFrom: file)
        defer { try? input.close() }
        let head =
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\n\(title)\r\n"
            + "--\(boundary)\r\nContent-Disposition: form-data; name=\"video\"; filename=\"source.bin\"\r\n"
            + "Content-Type: application/octet-stream\r\n\r\n"
        try output.write(contentsOf: Data(head.utf8))
        while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
            try output.write(contentsOf: chunk)
        }
        try output.write(contentsOf: Data("\r\n--\(boundary)--\r\n".utf8))
    }
}
