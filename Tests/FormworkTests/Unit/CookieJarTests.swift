#if canImport(FoundationNetworking)
    import Foundation
    import FoundationNetworking
    import Testing

    @testable import Formwork

    /// Which stored cookies Formwork's Linux cookie jar sends on a redirect (RFC 6265, section 5.4).
    @Suite("Cookie jar matching")
    struct CookieJarTests {
        @Test(
            "A cookie's path matches the request's path, or a prefix of it that ends at a slash",
            arguments: [
                ("/", "/anything", true), ("", "/x", true), ("/cookies", "/cookies", true),
                ("/cookies", "/cookies/x", true), ("/cookies/", "/cookies/x", true),
                ("/cookies/", "/cookies/", true), ("/cookies", "/cookiesx", false),
                ("/cook", "/cookies", false), ("/a/b", "/a", false), ("/cookies/", "/cookies", false),
            ])
        func pathMatch(cookiePath: String, requestPath: String, matches: Bool) {
            #expect(CookieJar.pathMatches(cookiePath, requestPath) == matches)
        }

        private func cookie(
            path: String, secure: Bool = false, expires: Date? = nil
        ) throws -> HTTPCookie {
            var properties: [HTTPCookiePropertyKey: Any] = [
                .name: "c", .value: "1", .domain: "example.com", .path: path,
            ]
            if secure { properties[.secure] = "TRUE" }
            if let expires { properties[.expires] = expires }
            return try #require(HTTPCookie(properties: properties))
        }

        @Test("A request's path keeps its trailing slash when it is matched")
        func trailingSlash() throws {
            let url = try #require(URL(string: "http://example.com/cookies/"))
            #expect(CookieJar.isSent(try cookie(path: "/cookies/"), to: url, at: Date()))
        }

        @Test("A Secure cookie goes over HTTPS only; an expired one goes nowhere")
        func secureAndExpiry() throws {
            let http = try #require(URL(string: "http://example.com/"))
            let https = try #require(URL(string: "https://example.com/"))
            let now = Date()
            #expect(!CookieJar.isSent(try cookie(path: "/", secure: true), to: http, at: now))
            #expect(CookieJar.isSent(try cookie(path: "/", secure: true), to: https, at: now))
            let expiring = try cookie(path: "/", expires: now.addingTimeInterval(60))
            #expect(CookieJar.isSent(expiring, to: http, at: now))
            #expect(!CookieJar.isSent(expiring, to: http, at: now.addingTimeInterval(61)))
        }
    }
#endif
