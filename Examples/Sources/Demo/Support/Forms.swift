import Formwork
import Foundation

// The demo app's forms: one small value per API call, as MBNetwork apps describe them.

/// `GET /slow?ms=N`: an API call that takes N milliseconds (what a loading mask covers).
struct SlowForm: RequestFormable {
    /// The server's base URL.
    let base: String
    /// How long the server waits before answering.
    let milliseconds: Int
    var url: String { "\(base)/slow" }
    var parameters: Parameters { ["ms": milliseconds] }
}

/// `GET /weather?city=NAME`: `{"data": {"code": "200", "message": "OK", "city", "temperature", ...}}`.
struct WeatherForm: RequestFormable {
    /// The server's base URL.
    let base: String
    /// The city asked for.
    let city: String
    var url: String { "\(base)/weather" }
    var parameters: Parameters { ["city": city] }
}

/// The part of the weather answer the screens show.
struct Weather: Decodable, Sendable {
    /// The city.
    let city: String
    /// Degrees Celsius.
    let temperature: Double
    /// E.g. "Sunny".
    let condition: String
}

/// Where the weather API puts its code and message (MBNetwork's `WeatherError`).
struct WeatherError: JSONErrorable {
    static let envelope = Envelope(codePath: "data.code", messagePath: "data.message", successCodes: ["200"])
    let code: String?
    let message: String?
}

/// The `{code, msg, data}` envelope most of the demo API uses; `0` is success.
struct APIError: JSONErrorable {
    static let envelope = Envelope(messagePath: "msg", successCodes: ["0"])
    let code: String?
    let message: String?
}

/// Any GET on the demo server by path and query, for the error routes.
struct PathForm: RequestFormable {
    /// The server's base URL.
    let base: String
    /// E.g. `/business-error`.
    let path: String
    /// The query.
    var parameters: Parameters = [:]
    var url: String { base + path }
}

/// `GET /files/SIZE` to a file, with the server's switches (`cutAt`, `rate`, `tag`).
struct FileDownloadForm: DownloadFormable {
    /// The file's URL with its switches.
    let url: String
    /// Where the finished file goes.
    let destination: URL
}

/// Continues an interrupted download from its resume data, through a URL without the fault switch
/// that cut the first request (the server drops the connection only once).
struct ResumeDownloadForm: DownloadResumeFormable {
    /// Where the interrupted download stopped.
    let resumeData: ResumeData
    /// The file's URL, without `cutAt`.
    let url: String
    /// Where the finished file goes.
    let destination: URL
}

/// A multipart upload of a file with a title, as an app sends a video.
struct VideoUploadForm: UploadMultipartFormable {
    /// `/upload` on the demo server.
    let url: String
    /// The file to send.
    let file: URL
    var multipartFormData: MultipartFormData {
        var form = MultipartFormData()
        form.append(Data("Formwork demo upload".utf8), name: "title")
        form.append(file, name: "video")
        return form
    }
}

/// What `/upload` says it received.
struct UploadReceipt: Decodable, Sendable {
    /// One part of a multipart body.
    struct Part: Decodable, Sendable {
        let name: String
        let fileName: String?
        let contentType: String?
        let bytes: Int64
        let md5: String?
    }

    /// Bytes in the whole body.
    let bytes: Int64
    /// The parts of a multipart body.
    let parts: [Part]?
}

/// What `/stats?tag=T` counted for one tag.
struct TagStats: Decodable, Sendable {
    /// Requests that carried the tag.
    let requests: Int
    /// Body bytes `/files` sent for them.
    let bytesSent: Int64
    /// Body bytes `/upload` received for them.
    let bytesReceived: Int64
}

/// `GET /flaky?key=K`: no answer at all (the connection closes) until the key recovers.
struct FlakyNewsForm: RequestFormable {
    /// The server's base URL.
    let base: String
    /// The key that `/flaky/recover` brings back.
    let key: String
    var url: String { "\(base)/flaky" }
    var parameters: Parameters { ["key": key] }
}

/// What `/flaky` answers once up, at `data`.
struct FlakyReply: Decodable, Sendable {
    /// How many requests the server saw for the key.
    let attempt: Int
}
