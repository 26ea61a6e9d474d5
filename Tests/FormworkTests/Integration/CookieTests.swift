import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Cookies over the built-in transport: the `URLSessionConfiguration`'s cookie storage keeps what
/// responses set (a redirect's too) and sends it again, as `URLSession` does. URLSession-only:
/// not linked into the behaviour suite over AsyncHTTPClient (which has no cookie storage).
@Suite("Cookies against the demo server")
struct CookieTests {
    let client = Client()

    /// A monitor that watches nothing: its presence makes every exchange report as it moves.
    struct Watching: EventMonitor {}

    /// A session on a `URLSessionConfiguration` with a cookie storage of its own.
    func session(
        storage: HTTPCookieStorage?, policy: HTTPCookie.AcceptPolicy = .always, observed: Bool = false
    ) -> Session {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = storage
        configuration.httpCookieAcceptPolicy = policy
        return Session {
            $0.transport = URLSessionTransport(configuration: configuration)
            if observed { $0.interceptors.eventMonitors = [Watching()] }
        }
    }

    func newStorage() -> HTTPCookieStorage {
        HTTPCookieStorage.sharedCookieStorage(
            forGroupContainerIdentifier: "formwork-tests-\(UUID().uuidString)")
    }

    struct Shown: Decodable { let cookie: String }

    @Test(
        "A response's cookies are stored and sent with the next request",
        arguments: [false, true])
    func storedAndSent(observed: Bool) async throws {
        let storage = newStorage()
        let session = session(storage: storage, observed: observed)
        _ = try await client.request(
            TestForm(url: try await DemoServer.url("/cookies/set?a=1&b=2")), session: session
        )
        .data()
        let url = try #require(URL(string: try await DemoServer.url("/cookies")))
        let stored = Set((storage.cookies(for: url) ?? []).map { "\($0.name)=\($0.value)" })
        #expect(stored == ["a=1", "b=2"])
        let shown = try await client.request(TestForm(url: url.absoluteString), session: session).decode(
            Shown.self)
        let sent = Set(shown.cookie.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) })
        #expect(sent == ["a=1", "b=2"])
    }

    @Test("A cookie a redirect sets is stored and sent on the request it leads to")
    func redirectSetsCookie() async throws {
        let storage = newStorage()
        let target = try await DemoServer.url("/cookies")
        let url = try await DemoServer.url("/cookies/set?hop=1&to=\(target)")
        let shown = try await client.request(TestForm(url: url), session: session(storage: storage))
            .decode(Shown.self)
        #expect(storage.cookies?.map(\.name) == ["hop"])
        #expect(shown.cookie == "hop=1")
    }

    @Test("On a redirect, the cookies stored before and the redirect's own each go once")
    func redirectKeepsEveryCookieOnce() async throws {
        let storage = newStorage()
        let target = try await DemoServer.url("/cookies")
        let url = try #require(URL(string: try await DemoServer.url("/cookies/set?hop=1&to=\(target)")))
        let before = try #require(
            HTTPCookie(properties: [.name: "pre", .value: "1", .domain: url.host ?? "", .path: "/"]))
        storage.setCookie(before)
        let form = TestForm(url: url.absoluteString)
        let shown = try await client.request(form, session: session(storage: storage)).decode(Shown.self)
        let names = shown.cookie.split(whereSeparator: { $0 == ";" || $0 == "," }).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        #expect(names.sorted() == ["hop=1", "pre=1"])
    }

    @Test("A redirect to another host carries that host's cookies whose path, Secure flag and expiry match")
    func redirectMatchesPath() async throws {
        let storage = newStorage()
        let loopback = try await DemoServer.baseURL()
        let target = loopback.replacingOccurrences(of: "127.0.0.1", with: "localhost") + "/cookies"
        let stored: [[HTTPCookiePropertyKey: Any]] = [
            [.name: "root", .value: "1", .path: "/"],
            [.name: "scoped", .value: "1", .path: "/cookies"],
            [.name: "elsewhere", .value: "1", .path: "/cache/resource"],
            [.name: "near", .value: "1", .path: "/cook"],
            [.name: "deeper", .value: "1", .path: "/cookies/set"],
            [.name: "secure", .value: "1", .path: "/", .secure: "TRUE"],
            [.name: "expired", .value: "1", .path: "/", .expires: Date().addingTimeInterval(-60)],
        ]
        for properties in stored {
            var properties = properties
            properties[.domain] = "localhost"
            storage.setCookie(try #require(HTTPCookie(properties: properties)))
        }
        let url = try await DemoServer.url("/cookies/set?hop=1&to=\(target)")
        let shown = try await client.request(TestForm(url: url), session: session(storage: storage))
            .decode(Shown.self)
        let sent = shown.cookie.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(sent.sorted() == ["root=1", "scoped=1"])
    }

    @Test("An Expires date, comma and all, gives the cookie its expiry")
    func expiresDate() async throws {
        let storage = newStorage()
        let url = try await DemoServer.url("/cookies/set?dated=1&expires=1")
        _ = try await client.request(TestForm(url: url), session: session(storage: storage)).data()
        let cookie = try #require(storage.cookies?.first { $0.name == "dated" })
        let expires = try #require(cookie.expiresDate)
        #expect(expires > Date().addingTimeInterval(3_600))
        #expect(cookie.isSessionOnly == false)
    }

    @Test("With the accept policy never, nothing is stored")
    func policyNever() async throws {
        let storage = newStorage()
        let url = try await DemoServer.url("/cookies/set?no=1")
        _ = try await client.request(TestForm(url: url), session: session(storage: storage, policy: .never))
            .data()
        #expect(storage.cookies?.isEmpty ?? true)
    }

    @Test("With no cookie storage, a response's cookies are dropped and none is sent")
    func noStorage() async throws {
        let session = session(storage: nil)
        _ = try await client.request(
            TestForm(url: try await DemoServer.url("/cookies/set?x=1")), session: session
        )
        .data()
        let shown = try await client.request(
            TestForm(url: try await DemoServer.url("/cookies")), session: session
        )
        .decode(Shown.self)
        #expect(shown.cookie == "")
    }
}
