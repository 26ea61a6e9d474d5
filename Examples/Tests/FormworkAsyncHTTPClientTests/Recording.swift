import ExampleSupport
import Formwork
import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import FormworkAsyncHTTPClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The demo server, started once for the test process (built beside the tests: the test target
/// depends on `DemoServer`).
enum Server {
    private static let process = Result { try DemoServerProcess() }

    /// e.g. `http://127.0.0.1:54321/echo`.
    static func url(_ path: String) throws -> URL {
        let base = try process.get().baseURL
        return try #require(URL(string: base + path))
    }
}

/// One event a transport reported.
enum Event: Sendable {
    case response(HTTPURLResponse)
    case body(Int)
    case sent(total: Int64, expected: Int64?)
    case redirect(status: Int, to: URL)
    case credential(isProxy: Bool, previousFailures: Int)
    case finish((any Error)?)
}

/// The other side of the seam, as Formwork would be: records every event, answers redirects and
/// challenges the way a test says, and lets a test wait for the end.
final class RecordingEvents: TransportEvents {
    struct State {
        var events: [Event] = []
        var body = Data()
        var bodyCount = 0
        var finishes = 0
        /// Calls that overlapped another call (must stay 0: events come one at a time).
        var overlaps = 0
        var inCall = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    let state = NIOLockedValueBox(State())
    let acceptsResponse: Bool
    let keepsBody: Bool
    let redirectDecision: @Sendable (HTTPURLResponse, URLRequest) -> URLRequest?
    let credentialAnswer: @Sendable (Bool, Int) -> PasswordCredential?
    let onBody: @Sendable (Data) -> Void

    init(
        acceptsResponse: Bool = true,
        keepsBody: Bool = true,
        redirect: @escaping @Sendable (HTTPURLResponse, URLRequest) -> URLRequest? = { $1 },
        credential: @escaping @Sendable (Bool, Int) -> PasswordCredential? = { _, _ in nil },
        onBody: @escaping @Sendable (Data) -> Void = { _ in }
    ) {
        self.acceptsResponse = acceptsResponse
        self.keepsBody = keepsBody
        self.redirectDecision = redirect
        self.credentialAnswer = credential
        self.onBody = onBody
    }

    private func record(_ event: Event, body: Data? = nil) {
        state.withLockedValue { state in
            state.events.append(event)
            if let body {
                state.bodyCount += body.count
                if keepsBody { state.body.append(body) }
            }
        }
    }

    /// Marks a call in progress, to catch overlapping calls.
    private func call<T>(_ work: () -> T) -> T {
        state.withLockedValue { state in
            if state.inCall { state.overlaps += 1 }
            state.inCall = true
        }
        defer { state.withLockedValue { $0.inCall = false } }
        return work()
    }

    func receiveResponseHead(_ head: TransportResponseHead) -> Bool {
        call {
            record(.response(head.httpURLResponse()!))
            return acceptsResponse
        }
    }

    func receiveBody(_ body: Data) {
        call {
            record(.body(body.count), body: body)
            onBody(body)
        }
    }

    func sent(totalBytes: Int64, expectedBytes: Int64?) {
        call { record(.sent(total: totalBytes, expected: expectedBytes)) }
    }

    func redirect(_ response: HTTPURLResponse, to request: URLRequest) -> URLRequest? {
        call {
            record(.redirect(status: response.statusCode, to: request.url!))
            return redirectDecision(response, request)
        }
    }

    func credential(isProxy: Bool, previousFailures: Int) -> PasswordCredential? {
        call {
            record(.credential(isProxy: isProxy, previousFailures: previousFailures))
            return credentialAnswer(isProxy, previousFailures)
        }
    }

    func finish(_ error: (any Error)?) {
        let waiter = call {
            state.withLockedValue { state in
                state.events.append(.finish(error))
                state.finishes += 1
                defer { state.waiter = nil }
                return state.waiter
            }
        }
        waiter?.resume()
    }

    /// Waits (at most `timeout` seconds) for `finish`.
    func waitForFinish(timeout: TimeInterval = 120) async throws {
        let timedOut = NIOLockedValueBox(false)
        let timer = Task {
            try await Task.sleep(nanoseconds: UInt64(timeout * 1e9))
            let waiter = state.withLockedValue { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            timedOut.withLockedValue { $0 = waiter != nil }
            waiter?.resume()
        }
        await withCheckedContinuation { continuation in
            let done = state.withLockedValue { state in
                if state.finishes > 0 { return true }
                state.waiter = continuation
                return false
            }
            if done { continuation.resume() }
        }
        timer.cancel()
        if timedOut.withLockedValue({ $0 }) { throw TimedOut() }
    }

    struct TimedOut: Error {}

    var events: [Event] { state.withLockedValue { $0.events } }
    var body: Data { state.withLockedValue { $0.body } }
    var bodyCount: Int { state.withLockedValue { $0.bodyCount } }

    /// The one response delivered.
    var response: HTTPURLResponse? {
        events.lazy.compactMap { if case .response(let response) = $0 { response } else { nil } }.first
    }

    /// The error of the one `finish`.
    var finishError: (any Error)? {
        events.lazy.compactMap { if case .finish(let error) = $0 { error } else { nil } }.first
    }

    /// Checks the order rules of the seam: at most one response, body only after it, exactly one
    /// finish and nothing after it, no overlapping calls.
    func expectWellOrdered(sourceLocation: SourceLocation = #_sourceLocation) {
        let (events, overlaps) = state.withLockedValue { ($0.events, $0.overlaps) }
        var responses = 0
        var finishes = 0
        for event in events {
            #expect(finishes == 0, "an event after finish: \(event)", sourceLocation: sourceLocation)
            switch event {
            case .response: responses += 1
            case .body: #expect(responses == 1, "body before the response", sourceLocation: sourceLocation)
            case .finish: finishes += 1
            default: break
            }
        }
        #expect(responses <= 1, sourceLocation: sourceLocation)
        #expect(finishes == 1, sourceLocation: sourceLocation)
        #expect(overlaps == 0, sourceLocation: sourceLocation)
    }
}

/// Runs one exchange through a fresh transport task and waits for its end.
@discardableResult
func exchange(
    _ request: TransportRequest, events: RecordingEvents = RecordingEvents(),
    transport: AsyncHTTPClientTransport = AsyncHTTPClientTransport()
) async throws -> RecordingEvents {
    let task = transport.makeTask(for: request, events: events)
    task.resume()
    try await events.waitForFinish()
    events.expectWellOrdered()
    return events
}

/// A request for `path` on the demo server.
func serverRequest(_ path: String, method: String = "GET") throws -> URLRequest {
    var request = URLRequest(url: try Server.url(path))
    request.httpMethod = method
    return request
}

/// The URLError code an error carries.
func urlErrorCode(_ error: (any Error)?) -> URLError.Code? {
    (error as? URLError)?.code
}

/// A JSON object body.
func json(_ data: Data) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
}

/// The hex MD5 of bytes.
func md5(_ data: Data) -> String {
    var hash = MD5()
    data.withUnsafeBytes { hash.update($0) }
    return hash.finalize()
}
