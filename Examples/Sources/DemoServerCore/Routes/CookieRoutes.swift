import Foundation
import NIOHTTP1

/// Cookies: `/cookies/set` answers with `Set-Cookie` fields, `/cookies` shows the cookies the
/// request carried.
enum CookieRoutes {
    static let routes: [Route] = [
        Route([.GET], .exact("/cookies"), respond: show),
        Route([.GET], .exact("/cookies/set"), respond: set),
    ]

    /// `GET /cookies`: `{"cookie": "<the Cookie field, or empty>"}`.
    static func show(_ request: DemoRequest) -> DemoResponse {
        .json(["cookie": .string(request.headers[canonicalForm: "cookie"].joined(separator: "; "))])
    }

    /// `GET /cookies/set?NAME=VALUE&...[&expires=1][&to=URL]`: one `Set-Cookie` field per pair
    /// (`Path=/`; with `expires=1`, an `Expires` date a day ahead, whose comma a parser must keep).
    /// With `to`, a 302 to that URL carries them.
    static func set(_ request: DemoRequest) -> DemoResponse {
        let reserved: Set<String> = ["expires", "to"]
        let pairs = request.queryItems.filter { !reserved.contains($0.name) }
        guard !pairs.isEmpty,
            pairs.allSatisfy({ pair in
                !pair.name.isEmpty && !(pair.name + pair.value).contains { ";,=\r\n ".contains($0) }
            })
        else { return .badRequest("Missing or invalid cookie") }
        let expires =
            request.queryValue("expires") == "1"
            ? "; Expires=\(FileRoutes.httpDate(Date().addingTimeInterval(86_400)))" : ""
        var response: DemoResponse
        if let target = request.queryValue("to") {
            guard !target.isEmpty, !target.contains("\r"), !target.contains("\n") else {
                return .badRequest("Invalid to")
            }
            response = .json(["location": .string(target)], status: .found)
            response.headers.replaceOrAdd(name: "Location", value: target)
        } else {
            response = .json(["set": .int(pairs.count)])
        }
        for pair in pairs {
            response.headers.add(name: "Set-Cookie", value: "\(pair.name)=\(pair.value); Path=/\(expires)")
        }
        return response
    }
}
