// Public API only (no @testable): the decorator wraps `URLSessionTransport()`.
import Formwork
import FormworkTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Transports.md. Unlike the other articles' snippets, this one runs against the demo server:
// stubbed sessions always run on the built-in URLSession transport, whatever
// `configuration.transport` says, so a stub would never reach the decorator.

// MARK: - The article's code (Transports.md, "Writing a transport"), unchanged

extension DocSnippetTransportsTests {
    /// One exchange, as a ``LoggingTransport`` saw it.
    struct ExchangeRecord: Sendable {
        let method: String
        let url: String
        var status: Int?
        var redirects = 0
        var bytesReceived = 0
        var error: (any Error)?
        var isFinished = false

        var summary: String {
            let outcome = error.map { "failed: \($0.localizedDescription)" } ?? "\(status ?? 0)"
            return "\(method) \(url) → \(outcome), \(bytesReceived) bytes, \(redirects) redirect(s)"
        }
    }

    /// The exchanges a ``LoggingTransport`` saw, written from any thread.
    final class ExchangeLog: @unchecked Sendable {  // every stored property is guarded by `lock`
        private let lock = NSLock()
        private var records: [ExchangeRecord] = []
        private let write: @Sendable (String) -> Void

        init(write: @escaping @Sendable (String) -> Void = { print($0) }) {
            self.write = write
        }

        /// Every exchange so far, oldest first.
        var exchanges: [ExchangeRecord] {
            lock.lock()
            defer { lock.unlock() }
            return records
        }

        func start(_ request: URLRequest) -> Int {
            lock.lock()
            defer { lock.unlock() }
            records.append(
                ExchangeRecord(method: request.httpMethod ?? "GET", url: request.url?.absoluteString ?? "?"))
            return records.count - 1
        }

        func update(_ index: Int, _ change: (inout ExchangeRecord) -> Void) {
            lock.lock()
            defer { lock.unlock() }
            change(&records[index])
        }

        func end(_ index: Int, error: (any Error)?) {
            lock.lock()
            records[index].error = error
            records[index].isFinished = true
            let line = records[index].summary
            lock.unlock()
            write(line)
        }
    }

    /// A transport that carries every exchange on another one and logs it.
    struct LoggingTransport: Transport {
        let wrapped: any Transport
        let log: ExchangeLog

        func makeTask(for request: TransportRequest, events: any TransportEvents) -> any TransportTask {
            let index = log.start(request.urlRequest)  // quick, no I/O: on every request's path
            return wrapped.makeTask(
                for: request, events: LoggingEvents(wrapped: events, log: log, index: index))
        }
    }

    /// Records what passes, then hands everything on to Formwork's events unchanged.
    struct LoggingEvents: TransportEvents {
        let wrapped: any TransportEvents
        let log: ExchangeLog
        let index: Int

        func receiveResponseHead(_ head: TransportResponseHead) -> Bool {
            log.update(index) { $0.status = head.statusCode }
            return wrapped.receiveResponseHead(head)  // passed on as it is: no HTTPURLResponse made here
        }

        func receiveBody(_ body: Data) {
            log.update(index) { $0.bytesReceived += body.count }
            wrapped.receiveBody(body)  // may block (a download writing to disk): that is the back-pressure
        }

        func sent(totalBytes: Int64, expectedBytes: Int64?) {
            wrapped.sent(totalBytes: totalBytes, expectedBytes: expectedBytes)
        }

        func redirect(_ response: HTTPURLResponse, to request: URLRequest) -> URLRequest? {
            let next = wrapped.redirect(response, to: request)  // Formwork's rules decide
            if next != nil { log.update(index) { $0.redirects += 1 } }
            return next
        }

        func credential(isProxy: Bool, previousFailures: Int) -> PasswordCredential? {
            wrapped.credential(isProxy: isProxy, previousFailures: previousFailures)
        }

        func finish(_ error: (any Error)?) {
            log.end(index, error: error)  // before Formwork hears it: the log is complete when the request is
            wrapped.finish(error)
        }
    }
}

// MARK: - The test

@Suite("DocC article snippets: Transports", .timeLimit(.minutes(5)))
struct DocSnippetTransportsTests {
    struct Caller: Requestable {}

    struct PlainForm: RequestFormable {
        let url: String
    }

    struct Echo: Decodable, Sendable {
        let method: String
        let path: String
    }

    @Test("The logging decorator sees every exchange over the built-in transport, and changes nothing")
    func loggingTransport() async throws {
        let lines = DocSnippetTests.Lines()  // DocSnippetSupport.swift
        let log = ExchangeLog { lines.append($0) }
        // The article wraps a transport it makes (`AsyncHTTPClientTransport()`); here the inner
        // transport is the built-in one a session uses by default.
        let builtIn = URLSessionTransport()
        let api = Session { $0.transport = LoggingTransport(wrapped: builtIn, log: log) }
        let caller = Caller()

        // A redirect: one exchange, followed inside it after Formwork allowed the hop.
        let target = try await DemoServer.url("/echo/logged")
        let redirect = try await DemoServer.url(
            "/redirect?status=302&to="
                + (target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
        let redirected = caller.request(PlainForm(url: redirect), session: api)
        let data = try await redirected.data()
        let echo = try JSONDecoder().decode(Echo.self, from: data)
        #expect(echo.method == "GET")
        #expect(echo.path == "/echo/logged")

        // A 503 then a 200: one request, two attempts, so two exchanges.
        let key = UUID().uuidString
        let burst = try await DemoServer.url("/fault/burst?key=\(key)&failures=1&status=503")
        let retried = try await caller.request(PlainForm(url: burst), session: api)
            .retry(.exponential(retryLimit: 2, baseDelay: 0.01))
            .data()
        #expect(!retried.isEmpty)

        let exchanges = log.exchanges
        try #require(exchanges.count == 3)
        #expect(exchanges.allSatisfy { $0.isFinished && $0.error == nil && $0.method == "GET" })

        #expect(exchanges[0].url == redirect)
        #expect(exchanges[0].status == 200)
        #expect(exchanges[0].redirects == 1)
        #expect(exchanges[0].bytesReceived == data.count)

        #expect(exchanges[1...].allSatisfy { $0.url == burst && $0.redirects == 0 })
        #expect(exchanges[1].status == 503)
        #expect(exchanges[2].status == 200)
        #expect(exchanges[2].bytesReceived == retried.count)

        #expect(lines.all == exchanges.map(\.summary))
        #expect(lines.all[1].contains("→ 503"))
    }

    @Test("A session on a URLSession configuration of its own (the article's code) runs on it")
    func ownURLSessionConfiguration() async throws {
        // Transports.md, "The built-in transport, on a URLSession configuration of yours":
        let urlSessionConfiguration = URLSessionConfiguration.default
        urlSessionConfiguration.httpShouldSetCookies = false
        urlSessionConfiguration.httpMaximumConnectionsPerHost = 4
        let api = Session { configuration in
            configuration.transport = URLSessionTransport(configuration: urlSessionConfiguration)
        }
        // (end of the article's code)
        let url = try await DemoServer.url("/echo/own-configuration")
        let data = try await Caller().request(PlainForm(url: url), session: api).data()
        #expect(try JSONDecoder().decode(Echo.self, from: data).path == "/echo/own-configuration")
        #expect(api.configuration.transport is URLSessionTransport)
    }

    @Test("A failed exchange reaches the log with its error, and the request fails as usual")
    func loggingTransportFailure() async throws {
        let log = ExchangeLog { _ in }
        let api = Session {
            $0.transport = LoggingTransport(wrapped: URLSessionTransport(), log: log)
        }
        let reset = try await DemoServer.url("/fault/reset")
        await #expect(throws: NetworkError.self) {
            _ = try await Caller().request(PlainForm(url: reset), session: api).data()
        }
        let exchanges = log.exchanges
        try #require(exchanges.count == 1)
        #expect(exchanges[0].isFinished)
        #expect(exchanges[0].status == nil)
        #expect(exchanges[0].error is URLError)
    }
}
