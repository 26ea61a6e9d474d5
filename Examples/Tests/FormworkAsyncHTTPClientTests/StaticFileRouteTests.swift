import AsyncHTTPClient
import FormworkTestSupport
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import Testing

/// The demo server's `/static/{size}` (its file on disk sent with `sendfile`, which the benchmark
/// downloads from), checked with bare AsyncHTTPClient: the exact bytes of `/files/{size}`, a range,
/// a 416, a cut, and the chunked fallback under TLS.
@Suite("Demo server /static route", .timeLimit(.minutes(5)))
struct StaticFileRouteTests {
    /// An odd size (not a multiple of the 8-byte content word), over one 4 MiB write chunk.
    static let size: Int64 = (5 << 20) + 13

    /// Runs `body` with a fresh client (trusting `certificates`' CA when given), then shuts it down.
    private func withClient<T: Sendable>(
        trusting certificates: TestCertificates? = nil, _ body: (HTTPClient) async throws -> T
    ) async throws -> T {
        var configuration = HTTPClient.Configuration()
        if let certificates {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .file(certificates.caCertificate.path)
            configuration.tlsConfiguration = tls
        }
        let client = HTTPClient(
            eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        do {
            let result = try await body(client)
            try await client.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    /// Sends `method` for `url` with `headers` and returns the whole response.
    private func fetch(
        _ url: URL, method: HTTPMethod = .GET, headers: HTTPHeaders = [:], client: HTTPClient
    ) async throws -> HTTPClient.Response {
        let request = try HTTPClient.Request(url: url.absoluteString, method: method, headers: headers)
        return try await client.execute(request: request).get()
    }

    /// The body's bytes.
    private func bytes(_ response: HTTPClient.Response) -> Data {
        response.body.map { Data($0.readableBytesView) } ?? Data()
    }

    @Test("GET sends exactly the bytes of /files/{size}, with its length and validators; HEAD only the head")
    func wholeFile() async throws {
        let size = Self.size
        let url = try Server.url("/static/\(size)")
        try await withClient { client in
            let response = try await fetch(url, client: client)
            #expect(response.status == .ok)
            #expect(response.headers.first(name: "content-length") == String(size))
            #expect(response.headers.first(name: "accept-ranges") == "bytes")
            #expect(response.headers.first(name: "etag") == "\"static-\(size)\"")
            #expect(response.headers.first(name: "last-modified") != nil)
            let body = bytes(response)
            #expect(body.count == Int(size))
            #expect(body == DemoFileContent.bytes(size: size))

            let head = try await fetch(url, method: .HEAD, client: client)
            #expect(head.status == .ok)
            #expect(head.headers.first(name: "content-length") == String(size))
            #expect(bytes(head).isEmpty)
        }
    }

    @Test(
        "A single range gives 206 with Content-Range and exactly those bytes",
        arguments: [
            ("bytes=1000-2999", Int64(1000)..<3000),
            ("bytes=4194300-4194310", Int64(4_194_300)..<4_194_311),
            ("bytes=-17", StaticFileRouteTests.size - 17..<StaticFileRouteTests.size),
            (
                "bytes=\(StaticFileRouteTests.size - 5)-",
                StaticFileRouteTests.size - 5..<StaticFileRouteTests.size
            ),
        ])
    func range(header: String, expected: Range<Int64>) async throws {
        let size = Self.size
        let url = try Server.url("/static/\(size)")
        try await withClient { client in
            let response = try await fetch(url, headers: ["Range": header], client: client)
            #expect(response.status == .partialContent)
            #expect(
                response.headers.first(name: "content-range")
                    == "bytes \(expected.lowerBound)-\(expected.upperBound - 1)/\(size)")
            #expect(response.headers.first(name: "content-length") == String(expected.count))
            #expect(bytes(response) == DemoFileContent.bytes(in: expected))
        }
    }

    @Test("A range that starts at or past the end gives 416 with Content-Range: bytes */size")
    func unsatisfiable() async throws {
        let size = Self.size
        let url = try Server.url("/static/\(size)")
        try await withClient { client in
            for header in ["bytes=\(size)-", "bytes=\(size + 100)-\(size + 200)"] {
                let response = try await fetch(url, headers: ["Range": header], client: client)
                #expect(response.status == .rangeNotSatisfiable)
                #expect(response.headers.first(name: "content-range") == "bytes */\(size)")
            }
        }
    }

    @Test("An If-Range that does not match the ETag gets the whole file (200)")
    func staleIfRange() async throws {
        let size = Self.size
        let url = try Server.url("/static/\(size)")
        try await withClient { client in
            let response = try await fetch(
                url, headers: ["Range": "bytes=10-19", "If-Range": "\"files-\(size)-v1\""], client: client)
            #expect(response.status == .ok)
            #expect(bytes(response).count == Int(size))
        }
    }

    @Test("cutAt closes the connection after that many body bytes; tag counts them in /stats")
    func cut() async throws {
        let size = Self.size
        let tag = "static-cut-\(UUID().uuidString.prefix(8))"
        let url = try Server.url("/static/\(size)?cutAt=1000&tag=\(tag)")
        try await withClient { client in
            await #expect(throws: (any Error).self) {
                _ = try await fetch(url, client: client)
            }
            let stats = try await fetch(try Server.url("/stats?tag=\(tag)"), client: client)
            let object = try JSONSerialization.jsonObject(with: bytes(stats)) as? [String: Any]
            let counters = object?["tag"] as? [String: Any]
            #expect((counters?["bytesSent"] as? NSNumber)?.int64Value == 1000)
            #expect((counters?["requests"] as? NSNumber)?.intValue == 1)
        }
    }

    @Test("Over TLS (no sendfile there) the file is read in chunks: the same bytes and ranges")
    func overTLS() async throws {
        let server = try await DemoServer.tls()
        let size = Self.size
        let url = try #require(URL(string: server.url("/static/\(size)")))
        try await withClient(trusting: server.certificates) { client in
            let whole = try await fetch(url, client: client)
            #expect(whole.status == .ok)
            #expect(bytes(whole) == DemoFileContent.bytes(size: size))
            let part = try await fetch(url, headers: ["Range": "bytes=4194299-4194399"], client: client)
            #expect(part.status == .partialContent)
            #expect(bytes(part) == DemoFileContent.bytes(in: 4_194_299..<4_194_400))
        }
    }
}
