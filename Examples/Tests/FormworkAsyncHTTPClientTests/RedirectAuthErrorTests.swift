import Formwork
import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import FormworkAsyncHTTPClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Redirects, challenges and failures, against the real demo server.
@Suite("AsyncHTTPClient transport: redirects, challenges, errors")
struct RedirectAuthErrorTests {
    /// The redirects the events were asked about.
    private func redirects(_ events: RecordingEvents) -> [(status: Int, url: URL)] {
        events.events.compactMap {
            if case .redirect(let status, let url) = $0 { (status, url) } else { nil }
        }
    }

    /// `/redirect` to `target` (escaped for the query) with `status`.
    private func redirectPath(to target: String, status: Int) -> String {
        let escaped = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? target
        return "/redirect?status=\(status)&to=\(escaped)"
    }

    @Test("A redirect to an absolute URL on the same origin is followed after asking")
    func sameOrigin() async throws {
        let target = try Server.url("/echo?hop=1")
        let request = try serverRequest(redirectPath(to: target.absoluteString, status: 302))
        let events = try await exchange(TransportRequest(urlRequest: request))
        #expect(redirects(events).map(\.status) == [302])
        #expect(redirects(events).map(\.url) == [target])
        #expect(events.response?.statusCode == 200)
        #expect(events.response?.url == target)
        #expect(try json(events.body)["query"] as? String == "hop=1")
    }

    @Test("A relative Location is resolved against the current URL")
    func relativeLocation() async throws {
        let request = try serverRequest(redirectPath(to: "/echo/relative?x=2", status: 301))
        let events = try await exchange(TransportRequest(urlRequest: request))
        #expect(redirects(events).map(\.url) == [try Server.url("/echo/relative?x=2")])
        #expect(try json(events.body)["path"] as? String == "/echo/relative")
    }

    @Test("A 303 after a POST becomes a GET without a body", arguments: [303, 302, 301])
    func seeOtherBecomesGet(status: Int) async throws {
        var request = try serverRequest(redirectPath(to: "/echo", status: status), method: "POST")
        request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        let events = try await exchange(
            TransportRequest(urlRequest: request, body: .data(Data("payload".utf8))))
        let echo = try json(events.body)
        #expect(echo["method"] as? String == "GET")
        #expect(echo["bodyLength"] as? Int == 0)
        #expect((echo["headers"] as? [String: String])?["content-type"] == nil)
    }

    @Test("A 307 and a 308 keep the method and the body", arguments: [307, 308])
    func temporaryKeepsBody(status: Int) async throws {
        let request = try serverRequest(redirectPath(to: "/echo", status: status), method: "PUT")
        let events = try await exchange(
            TransportRequest(urlRequest: request, body: .data(Data("again".utf8))))
        let echo = try json(events.body)
        #expect(echo["method"] as? String == "PUT")
        #expect(echo["body"] as? String == "again")
    }

    @Test("A refused redirect delivers the 3xx with its body")
    func refused() async throws {
        let request = try serverRequest(redirectPath(to: "/echo", status: 302))
        let events = try await exchange(
            TransportRequest(urlRequest: request), events: RecordingEvents(redirect: { _, _ in nil }))
        #expect(redirects(events).count == 1)
        #expect(events.response?.statusCode == 302)
        #expect(events.response?.value(forHTTPHeaderField: "Location") == "/echo")
        #expect(try json(events.body)["location"] as? String == "/echo")
        #expect(events.finishError == nil)
    }

    @Test("Following redirects forever fails after 16 hops with httpTooManyRedirects")
    func tooMany() async throws {
        let start = try serverRequest(redirectPath(to: "/echo", status: 302))
        // The events send every hop back to the redirect: a loop the transport must end.
        let events = try await exchange(
            TransportRequest(urlRequest: start), events: RecordingEvents(redirect: { _, _ in start }))
        #expect(redirects(events).count == AsyncHTTPClientTransport.maximumRedirects)
        #expect(events.response == nil)
        #expect(urlErrorCode(events.finishError) == .httpTooManyRedirects)
    }

    /// The challenge answers the events gave, as (isProxy, previousFailures).
    private func credentialRequests(_ events: RecordingEvents) -> [Int] {
        events.events.compactMap { if case .credential(_, let failures) = $0 { failures } else { nil } }
    }

    /// Answers like Formwork: the credential once, never after a refusal.
    private func answeringOnce(_ credential: PasswordCredential) -> RecordingEvents {
        RecordingEvents(credential: { _, failures in failures == 0 ? credential : nil })
    }

    /// The right password gets a 200 after one answer; a wrong one gets the second 401 as the
    /// response (asked twice, answered once: never a loop).
    @Test(
        "A 401 Basic is answered once with the credential",
        arguments: [("lovelace", 200, [0]), ("wrong", 401, [0, 1])])
    func basicAnswered(password: String, status: Int, asks: [Int]) async throws {
        let request = try serverRequest("/challenge/basic?user=ada&password=lovelace")
        let events = try await exchange(
            TransportRequest(urlRequest: request),
            events: answeringOnce(PasswordCredential(user: "ada", password: password)))
        #expect(credentialRequests(events) == asks)
        #expect(events.response?.statusCode == status)
        if status == 200 { #expect(try json(events.body)["user"] as? String == "ada") }
    }

    @Test("A 401 Basic without a credential is the response")
    func basicUnanswered() async throws {
        let request = try serverRequest("/challenge/basic?user=ada&password=lovelace")
        let events = try await exchange(TransportRequest(urlRequest: request))
        #expect(credentialRequests(events) == [0])
        #expect(events.response?.statusCode == 401)
        #expect(try json(events.body)["message"] as? String == "Authentication required")
    }

    @Test(
        "Digest and Bearer challenges are not answered: the 401 is the response",
        arguments: ["digest", "bearer"])
    func otherSchemes(scheme: String) async throws {
        let request = try serverRequest("/challenge/\(scheme)")
        let events = try await exchange(
            TransportRequest(urlRequest: request),
            events: answeringOnce(PasswordCredential(user: "ada", password: "lovelace")))
        #expect(credentialRequests(events).isEmpty)
        #expect(events.response?.statusCode == 401)
    }

    @Test("A 407 Basic asks for the proxy credential and sends Proxy-Authorization")
    func proxyChallenge() async throws {
        let request = try serverRequest("/challenge/proxy")
        let events = try await exchange(
            TransportRequest(urlRequest: request),
            events: answeringOnce(PasswordCredential(user: "p", password: "q")))
        let asked = events.events.compactMap {
            if case .credential(let isProxy, _) = $0 { isProxy } else { nil }
        }
        // The demo server challenges whatever is sent: answered once, then the 407 is the response.
        #expect(asked == [true, true])
        #expect(events.response?.statusCode == 407)
    }

    @Test("Nothing listening: cannotConnectToHost")
    func connectionRefused() async throws {
        let port = try unusedPort()
        let request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)/")))
        let events = try await exchange(TransportRequest(urlRequest: request))
        #expect(events.response == nil)
        #expect(urlErrorCode(events.finishError) == .cannotConnectToHost)
    }

    @Test("A body cut short: networkConnectionLost", arguments: [false, true])
    func cutBody(bodyMayBlock: Bool) async throws {
        let request = try serverRequest("/files/\(1 << 20)?cutAt=100000")
        let events = try await exchange(TransportRequest(urlRequest: request, bodyMayBlock: bodyMayBlock))
        #expect(events.response?.statusCode == 200)
        // AsyncHTTPClient drops body bytes it still held when the error came: never more than sent.
        #expect(events.bodyCount <= 100_000)
        #expect(urlErrorCode(events.finishError) == .networkConnectionLost)
    }

    @Test("A connection closed before any response: networkConnectionLost")
    func closedWithoutResponse() async throws {
        let events = try await exchange(TransportRequest(urlRequest: try serverRequest("/fault/close")))
        #expect(events.response == nil)
        #expect(urlErrorCode(events.finishError) == .networkConnectionLost)
    }

    @Test("An unsupported scheme: unsupportedURL, with no I/O")
    func unsupportedScheme() async throws {
        let request = URLRequest(url: try #require(URL(string: "ftp://127.0.0.1/file")))
        let events = try await exchange(TransportRequest(urlRequest: request))
        #expect(urlErrorCode(events.finishError) == .unsupportedURL)
    }

    @Test("The error mapping keeps URLErrors and wraps the rest with the original")
    func mapping() throws {
        let original = URLError(.timedOut)
        #expect(urlErrorCode(AsyncHTTPClientTransport.urlError(for: original)) == .timedOut)
        struct Other: Error {}
        let wrapped = try #require(AsyncHTTPClientTransport.urlError(for: Other()) as? URLError)
        #expect(wrapped.code == .unknown)
        #expect(wrapped.userInfo[NSUnderlyingErrorKey] is Other)
    }
}

/// A TCP port on 127.0.0.1 where nothing listens: bound, then closed.
func unusedPort() throws -> Int {
    let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(socket) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let port = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress -> Int in
            guard bind(socket, socketAddress, length) == 0, getsockname(socket, socketAddress, &length) == 0
            else {
                return -1
            }
            return Int(UInt16(bigEndian: pointer.pointee.sin_port))
        }
    }
    try #require(port > 0)
    return port
}
