import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// Token authentication with refresh, per realm (so parallel tests do not share state):
/// - `GET /auth/protected?realm=R`: 200 `{"realm":R,"token":T}` when `Authorization: Bearer R-<generation>`
///   names the realm's current generation, else 401 `{"code":"401","message":"Token expired"}`.
/// - `POST /auth/refresh?realm=R`: moves the realm to the next generation and answers
///   `{"token":"R-<generation>"}`; with `fail=1` it answers 500 instead (a failed refresh).
/// - `GET /auth/stats?realm=R`: `{"refreshes":N,"rejected":N,"accepted":N}`.
/// A realm starts at generation 0, whose token is `R-0`.
enum AuthRoutes {
    struct Realm: Sendable {
        var generation = 0
        var refreshes = 0
        var rejected = 0
        var accepted = 0
    }

    static let realms = NIOLockedValueBox([String: Realm]())

    static let routes: [Route] = [
        Route([.GET], .exact("/auth/protected")) { request in
            let realm = request.queryValue("realm") ?? "default"
            let presented = request.headers.first(name: "Authorization") ?? ""
            let accepted = realms.withLockedValue { realms -> Bool in
                var state = realms[realm, default: Realm()]
                let ok = presented == "Bearer \(realm)-\(state.generation)"
                if ok { state.accepted += 1 } else { state.rejected += 1 }
                realms[realm] = state
                return ok
            }
            guard accepted else {
                return .json(["code": "401", "message": "Token expired"], status: .unauthorized)
            }
            return .json([
                "realm": .string(realm), "token": .string(String(presented.dropFirst("Bearer ".count))),
            ])
        },
        Route([.POST], .exact("/auth/refresh")) { request in
            let realm = request.queryValue("realm") ?? "default"
            if request.queryValue("fail") == "1" {
                return .json(["code": "500", "message": "Refresh failed"], status: .internalServerError)
            }
            let generation = realms.withLockedValue { realms -> Int in
                var state = realms[realm, default: Realm()]
                state.generation += 1
                state.refreshes += 1
                realms[realm] = state
                return state.generation
            }
            return .json(["token": .string("\(realm)-\(generation)")])
        },
        Route([.GET], .exact("/auth/stats")) { request in
            let realm = request.queryValue("realm") ?? "default"
            let state = realms.withLockedValue { $0[realm, default: Realm()] }
            return .json([
                "refreshes": .int(state.refreshes), "rejected": .int(state.rejected),
                "accepted": .int(state.accepted),
            ])
        },
    ]
}
