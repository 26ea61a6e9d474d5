import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request as the outbox takes it from a form at enqueue time: the record still without its
/// order and body placement, and where its body is.
struct OutboxRequestParts: Sendable {
    var record: OutboxRecord
    var bodyData: Data?
    var bodyFile: URL?

    /// Reads a form with parameters: they are encoded now, as the form says (a query in the URL,
    /// or a body with its `Content-Type`). The session's own headers are not kept; they are added
    /// when the request is sent. A relative URL is resolved against the session's `baseURL` now.
    init(
        baseURL: String?, _ form: FormSnapshot, key: String, lane: String, tag: String?, expiresAt: Date?
    ) throws(NetworkError) {
        var configuration = Self.bare
        configuration.baseURL = baseURL
        let built = try URLRequestBuilder.request(for: form, configuration: configuration)
        var headers = form.headers
        if let type = built.value(forHTTPHeaderField: "Content-Type"),
            headers.value(for: "Content-Type") == nil
        {
            headers.update(name: "Content-Type", value: type)
        }
        self.init(
            url: built.url?.absoluteString ?? form.url, method: form.method, headers: headers,
            timeout: form.idleTimeout, key: key, lane: lane, tag: tag, expiresAt: expiresAt)
        bodyData = built.httpBody.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Reads an upload form (its body is given apart: bytes or a file, copied at enqueue time).
    init(
        baseURL: String?, upload form: FormSnapshot, data: Data?, file: URL?, defaultContentType: String,
        key: String,
        lane: String,
        tag: String?, expiresAt: Date?
    ) throws(NetworkError) {
        let url = try URLRequestBuilder.url(from: form.url, baseURL: baseURL)
        var headers = form.headers
        if headers.value(for: "Content-Type") == nil {
            headers.update(name: "Content-Type", value: defaultContentType)
        }
        try headers.validate()
        self.init(
            url: url.absoluteString, method: form.method, headers: headers, timeout: form.idleTimeout,
            key: key,
            lane: lane, tag: tag, expiresAt: expiresAt)
        bodyData = data
        bodyFile = file
    }

    /// Sends the body as `type`, whatever the form's headers said (a multipart body's boundary).
    mutating func setContentType(_ type: String) {
        record.headers.removeAll { $0.name.equalsIgnoringASCIICase("Content-Type") }
        record.headers.append(OutboxRecord.Field(name: "Content-Type", value: type))
    }

    private init(
        url: String, method: HTTPMethod, headers: HTTPHeaders, timeout: TimeInterval?, key: String,
        lane: String, tag: String?, expiresAt: Date?
    ) {
        record = OutboxRecord(
            id: UUID(), sequence: 0, lane: lane, tag: tag, idempotencyKey: key, method: method.rawValue,
            url: url,
            headers: headers.map { OutboxRecord.Field(name: $0.name, value: $0.value) }, body: .none,
            enqueuedAt: Date(), expiresAt: expiresAt, timeout: timeout)
    }

    /// A configuration with nothing of its own to add (no headers, no user agent), made once.
    private static let bare: Session.Configuration = {
        var configuration = Session.Configuration()
        configuration.userAgent = nil
        return configuration
    }()
}

/// A pending request sent without a body.
struct OutboxPlainForm: RequestFormable {
    let url: String
    let method: HTTPMethod
    let headers: HTTPHeaders
    let idleTimeout: TimeInterval?
    var cachePolicy: CachePolicy { .reloadIgnoringCache }
    var coalescesRequests: Bool { false }
}

/// A pending request sent with a body held in memory.
struct OutboxDataForm: UploadDataFormable {
    let url: String
    let method: HTTPMethod
    let headers: HTTPHeaders
    let idleTimeout: TimeInterval?
    let data: Data
    var cachePolicy: CachePolicy { .reloadIgnoringCache }
}

/// A pending request sent with a body read from the outbox's copy of its file.
struct OutboxFileForm: UploadFileFormable {
    let url: String
    let method: HTTPMethod
    let headers: HTTPHeaders
    let idleTimeout: TimeInterval?
    let fileURL: URL
    var cachePolicy: CachePolicy { .reloadIgnoringCache }
}
