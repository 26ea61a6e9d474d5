import NIOHTTP1

/// Business-data endpoints: `/weather` (MBNetwork's envelope) and `/articles` (a paged list).
enum DataRoutes {
    static let routes: [Route] = [
        Route([.GET], .exact("/weather"), respond: weather),
        Route([.GET], .exact("/articles"), respond: articles),
    ]

    /// The only city the weather service does not know.
    static let unknownCity = "atlantis"

    /// `GET /weather?city=NAME`: the result code and message sit inside `data`, as in MBNetwork's examples.
    static func weather(_ request: DemoRequest) -> DemoResponse {
        guard let city = request.queryValue("city"), !city.isEmpty else {
            return .json(["data": ["code": "400", "message": "Missing city"]], status: .badRequest)
        }
        if city.lowercased() == unknownCity {
            return .json(["data": ["code": "404", "message": "City not found"]])
        }
        let forecast: JSON = [
            ["day": "Mon", "high": 25, "low": 17],
            ["day": "Tue", "high": 24, "low": 16],
            ["day": "Wed", "high": 22, "low": 15],
        ]
        return .json([
            "data": [
                "code": "200",
                "message": "OK",
                "city": .string(city),
                "temperature": 23.5,
                "condition": "Sunny",
                "forecast": forecast,
            ]
        ])
    }

    /// How many articles exist in all.
    static let totalArticles = 95

    /// `GET /articles?page=N&size=M` (defaults 1 and 10): a deterministic page; pages past the
    /// end are short or empty.
    static func articles(_ request: DemoRequest) -> DemoResponse {
        guard let page = positiveInt(request.queryValue("page"), default: 1) else {
            return .json(["code": 400, "msg": "Invalid page", "data": nil], status: .badRequest)
        }
        guard let size = positiveInt(request.queryValue("size"), default: 10), size <= 1000 else {
            return .json(["code": 400, "msg": "Invalid size", "data": nil], status: .badRequest)
        }
        let (first, overflow) = (page - 1).multipliedReportingOverflow(by: size)
        let start = overflow ? totalArticles : min(first, totalArticles)
        let end = min(start + size, totalArticles)
        let list: [JSON] = (start..<end).map { index in
            let id = index + 1
            return [
                "id": .int(id), "title": .string("Article \(id)"),
                "author": .string("Author \(index % 5 + 1)"),
            ]
        }
        return .json([
            "code": 0,
            "msg": "success",
            "data": ["list": .array(list), "page": .int(page), "total": .int(totalArticles)],
        ])
    }

    /// `text` as an integer ≥ 1, `defaultValue` when absent, nil when invalid.
    private static func positiveInt(_ text: String?, default defaultValue: Int) -> Int? {
        guard let text else { return defaultValue }
        guard let value = Int(text), value >= 1 else { return nil }
        return value
    }
}
