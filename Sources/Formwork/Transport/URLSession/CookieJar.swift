import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking

    /// The cookies of a `URLSessionTransport` on corelibs URLSession (Linux), kept by Formwork
    /// instead of corelibs: the configuration's `HTTPCookieStorage` stores what responses set, and
    /// is sent again, as corelibs would, at a fraction of the cost.
    ///
    /// corelibs reads every response header line as a possible cookie (a string, a split, a
    /// dictionary and a cookie parse per line, about 80,000 instructions for a small response with
    /// none), unless the configuration's accept policy is `.never`. So the transport's `URLSession`
    /// gets that policy, and this jar reads the one `Set-Cookie` field, when there is one, of each
    /// response: the final one, each redirect's and each challenge's. It also does what corelibs
    /// does not: the request a redirect leads to carries the cookies stored for its URL (corelibs
    /// sends the cookies of the first request's URL only), matched by path, `Secure` and expiry
    /// as well as by host. Requests still get their cookies from corelibs (`httpShouldSetCookies`),
    /// which this does not change.
    struct CookieJar: Sendable {
        /// The storage.
        let storage: HTTPCookieStorage
        /// Whether requests carry the stored cookies (`httpShouldSetCookies`).
        let sendsCookies: Bool

        /// The jar for `configuration`, which it takes over: nil when the configuration stores no
        /// cookies (no storage, or the policy `.never`), else the jar, and the configuration's policy
        /// set to `.never`.
        static func takingOver(_ configuration: URLSessionConfiguration) -> CookieJar? {
            guard configuration.httpCookieAcceptPolicy != .never,
                let storage = configuration.httpCookieStorage
            else {
                return nil
            }
            configuration.httpCookieAcceptPolicy = .never
            return CookieJar(storage: storage, sendsCookies: configuration.httpShouldSetCookies)
        }

        /// Stores the cookies `response` sets, if any.
        func store(from response: HTTPURLResponse) {
            guard let field = response.value(forHTTPHeaderField: "Set-Cookie"), let url = response.url else {
                return
            }
            let cookies = HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": field], for: url)
            if !cookies.isEmpty { storage.setCookies(cookies, for: url, mainDocumentURL: nil) }
        }

        /// `request` (the next hop of a redirect) with the stored cookies for its URL that its
        /// `Cookie` field does not carry yet.
        func addingCookies(to request: URLRequest) -> URLRequest {
            let now = Date()
            guard sendsCookies, let url = request.url,
                let stored = storage.cookies(for: url)?.filter({ Self.isSent($0, to: url, at: now) }),
                !stored.isEmpty
            else {
                return request
            }
            let present = request.value(forHTTPHeaderField: "Cookie") ?? ""
            let names = Set(
                present.split(separator: ";").map {
                    $0.split(separator: "=", maxSplits: 1).first.map {
                        $0.trimmingCharacters(in: .whitespaces)
                    }
                        ?? ""
                })
            let missing = stored.filter { !names.contains($0.name) }
            guard let value = HTTPCookie.requestHeaderFields(with: missing)["Cookie"], !value.isEmpty else {
                return request
            }
            var request = request
            request.setValue(present.isEmpty ? value : "\(present); \(value)", forHTTPHeaderField: "Cookie")
            return request
        }

        /// Whether `cookie`, which the storage found for `url`'s host, goes with a request to
        /// `url` (RFC 6265, section 5.4): its path path-matches the URL's, it is not `Secure` on a
        /// request that is not HTTPS, and it has not expired. corelibs' storage matches the host
        /// only, so a cookie scoped to one path went with a redirect to any other.
        static func isSent(_ cookie: HTTPCookie, to url: URL, at now: Date) -> Bool {
            if cookie.isSecure, url.scheme?.lowercased() != "https" { return false }
            if let expires = cookie.expiresDate, expires <= now { return false }
            // The path as the URL has it: `url.path` drops a trailing slash, which a cookie's
            // path may end with.
            let path = url.path(percentEncoded: true)
            return pathMatches(cookie.path, path.isEmpty ? "/" : path)
        }

        /// RFC 6265, section 5.1.4: the cookie's path is the request's, or a prefix of it that
        /// ends with `/` or is followed by `/` in it.
        static func pathMatches(_ cookiePath: String, _ requestPath: String) -> Bool {
            let cookie = Array((cookiePath.isEmpty ? "/" : cookiePath).utf8)
            let request = Array(requestPath.utf8)
            guard request.starts(with: cookie) else { return false }
            return request.count == cookie.count || cookie.last == UInt8(ascii: "/")
                || request[cookie.count] == UInt8(ascii: "/")
        }
    }
#else
    /// On Apple platforms `URLSession` keeps the cookies itself: the jar does nothing.
    struct CookieJar: Sendable {
        /// Nothing to store.
        func store(from response: HTTPURLResponse) {}
    }
#endif
