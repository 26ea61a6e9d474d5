import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// Endpoints for Formwork's security tests. Each counts the requests it gets by `tag`, so a test
/// can prove a request never reached the server:
/// - `ANY /security/record?tag=T[&status=N]`: counts, then answers like `/echo` (status N, 200 by default).
/// - `GET /security/seen?tag=T`: `{"count":N}`, the requests seen with that tag by any route here.
/// - `GET /challenge/basic?user=U&password=P&tag=T`: 200 `{"user":U}` when `Authorization` is
///   HTTP Basic for U:P, else 401 with `WWW-Authenticate: Basic realm="formwork"` and a JSON body.
/// - `GET /challenge/digest?tag=T`, `GET /challenge/bearer?tag=T`: 401 with a Digest or a Bearer
///   challenge, whatever the request carries.
/// - `GET /challenge/proxy?tag=T`: 407 with `Proxy-Authenticate: Basic realm="formwork"`.
enum SecurityRoutes {
    static let seen = NIOLockedValueBox([String: Int]())

    static let routes: [Route] = [
        Route(nil, .exact("/security/record")) { request in
            count(request)
            var response = EchoRoutes.echo(request)
            if let status = request.queryValue("status").flatMap(Int.init) {
                response.status = HTTPResponseStatus(statusCode: status)
            }
            return response
        },
        Route([.GET], .exact("/security/seen")) { request in
            let tag = request.queryValue("tag") ?? ""
            return .json(["count": .int(seen.withLockedValue { $0[tag, default: 0] })])
        },
        Route([.GET], .exact("/challenge/basic")) { request in
            count(request)
            let user = request.queryValue("user") ?? "user"
            let password = request.queryValue("password") ?? "password"
            let expected = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
            guard request.headers.first(name: "Authorization") == expected else {
                return challenge(
                    .unauthorized, "WWW-Authenticate", #"Basic realm="formwork", charset="UTF-8""#)
            }
            return .json(["user": .string(user)])
        },
        Route([.GET], .exact("/challenge/digest")) { request in
            count(request)
            return challenge(
                .unauthorized, "WWW-Authenticate",
                #"Digest realm="formwork", qop="auth", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", algorithm=MD5"#
            )
        },
        Route([.GET], .exact("/challenge/bearer")) { request in
            count(request)
            return challenge(
                .unauthorized, "WWW-Authenticate", #"Bearer realm="formwork", error="invalid_token""#)
        },
        Route([.GET], .exact("/challenge/proxy")) { request in
            count(request)
            return challenge(.proxyAuthenticationRequired, "Proxy-Authenticate", #"Basic realm="formwork""#)
        },
    ]

    /// Counts a request under its `tag` (none: not counted).
    static func count(_ request: DemoRequest) {
        guard let tag = request.queryValue("tag") else { return }
        seen.withLockedValue { $0[tag, default: 0] += 1 }
    }

    /// A 401/407 with a challenge header and a JSON body a client can read.
    static func challenge(_ status: HTTPResponseStatus, _ header: String, _ value: String) -> DemoResponse {
        var response = DemoResponse.json(
            ["code": .string(String(status.code)), "message": "Authentication required"], status: status)
        response.headers.add(name: header, value: value)
        return response
    }
}
