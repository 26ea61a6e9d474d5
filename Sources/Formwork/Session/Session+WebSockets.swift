import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Session {
    /// Opens a WebSocket (see ``WebSocket``).
    ///
    /// ```swift
    /// let socket = session.webSocket(PricesForm(), options: .init(reconnection: .standard))
    /// for try await message in socket.messages() { show(message) }
    /// ```
    ///
    /// The form is read now; the socket connects when it is first read, sent on, pinged or hooked.
    /// Each connection's handshake is built from the form and the session's headers, then adapted
    /// by the session's adapters (so an authenticator puts the current credential on it); when the
    /// server refuses it, the session's retriers are asked, so an ``AuthenticationInterceptor``
    /// refreshes the credential after a `401` and the handshake is sent again.
    /// - Parameters:
    ///   - form: The URL, headers and subprotocols.
    ///   - options: The buffer limit, the largest message, and whether the socket reconnects.
    /// - Returns: The socket, not connected yet.
    public func webSocket(_ form: some WebSocketFormable, options: WebSocket.Options = WebSocket.Options())
        -> WebSocket
    {
        let built = Result { () throws(NetworkError) -> URLRequest in
            try WebSocketHandshake.request(for: form, configuration: configuration)
        }
        let subprotocols = form.subprotocols
        let (adapters, retriers) = (settings.adapters, settings.retriers)
        let maximumMessageSize = max(options.maximumMessageSize, 1)
        let transport = webSocketTransport
        return WebSocket(options: options) { _ in
            let request = try built.get()
            let transport = try transport.get()
            var retryCount = 0
            while true {
                let final = try await WebSocketHandshake.adapt(request, with: adapters)
                do {
                    return try await transport.connect(
                        final, subprotocols: subprotocols, maximumMessageSize: maximumMessageSize)
                } catch {
                    let failure = WebSocket.connectionError(error)
                    guard !retriers.isEmpty, !failure.isCancelled, failure.reason != .webSocketsUnavailable
                    else { throw failure }
                    let context = RetryContext(
                        request: final, response: failure.response, error: failure, retryCount: retryCount)
                    guard case .retry(let delay) = await RetrierChain(retriers).decide(context) else {
                        throw failure
                    }
                    retryCount += 1
                    await sleep(seconds: delay)
                    try Task.checkCancellation()
                }
            }
        }
    }

    /// What opens the session's WebSockets: the configuration's, else URLSession's on Apple
    /// platforms, else an error naming what to set.
    private var webSocketTransport: Result<any WebSocketTransport, NetworkError> {
        if let given = configuration.webSocketTransport { return .success(given) }
        #if canImport(FoundationNetworking)
            return .failure(WebSocketHandshake.unavailable(onLinux: true))
        #else
            guard let urlSession = urlSessionTransport?.urlSession else {
                return .failure(WebSocketHandshake.unavailable(onLinux: false))
            }
            return .success(URLSessionWebSocketTransport(session: urlSession))
        #endif
    }
}

extension Requestable {
    /// Opens a WebSocket (see ``Session/webSocket(_:options:)``).
    /// - Parameters:
    ///   - form: The URL, headers and subprotocols.
    ///   - session: The session that opens it.
    ///   - options: The buffer limit, the largest message, and whether the socket reconnects.
    /// - Returns: The socket, not connected yet.
    public func webSocket(
        _ form: some WebSocketFormable, session: Session = .default,
        options: WebSocket.Options = WebSocket.Options()
    ) -> WebSocket {
        session.webSocket(form, options: options)
    }
}

/// The opening handshake's request, built from a form as every request is.
enum WebSocketHandshake {
    /// The handshake request for `form`: a `GET` to its URL (`ws`/`wss`, or `http`/`https` turned
    /// into them) with the session's and the form's headers and the subprotocols offered.
    static func request(for form: some WebSocketFormable, configuration: Session.Configuration)
        throws(NetworkError) -> URLRequest
    {
        let text = URLRequestBuilder.trimmingWhitespace(form.url)
        let (httpText, secure) = httpURLText(text)
        let url = try URLRequestBuilder.url(from: httpText, baseURL: configuration.baseURL)
        var request = try URLRequestBuilder.baseRequest(for: form, url: url, configuration: configuration)
        request.httpMethod = "GET"
        if var components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            components.scheme = secure ? "wss" : "ws"
            if let webSocketURL = components.url { request.url = webSocketURL }
        }
        let subprotocols = form.subprotocols
        if !subprotocols.isEmpty {
            var headers = request.headers
            headers.update(name: "Sec-WebSocket-Protocol", value: subprotocols.joined(separator: ", "))
            do {
                try headers.validate()
            } catch {
                throw error.with(request: request)
            }
            request.headers = headers
        }
        return request
    }

    /// `text` with a `ws`/`wss` scheme spelled `http`/`https` (what the URL check takes), and
    /// whether it is secure.
    static func httpURLText(_ text: String) -> (String, Bool) {
        let lowered = text.prefix(6).lowercased()
        if lowered.hasPrefix("wss://") { return ("https://" + text.dropFirst(6), true) }
        if lowered.hasPrefix("ws://") { return ("http://" + text.dropFirst(5), false) }
        return (text, lowered.hasPrefix("https:"))
    }

    /// Runs the session's adapters on the handshake, then checks its headers.
    static func adapt(_ request: URLRequest, with adapters: [any RequestAdapter]) async throws -> URLRequest {
        guard !adapters.isEmpty else { return request }
        let adapted: OutgoingRequest
        do {
            adapted = try await AdapterChain(adapters).adapt(OutgoingRequest(request))
        } catch {
            if let error = error as? NetworkError { throw error }
            throw NetworkError(
                .requestBuildFailed, failureReason: "An adapter failed: \(error)", underlyingError: error,
                request: request)
        }
        return try FinalRequestCheck.validate(adapted)
    }

    /// The error of a session that cannot open WebSockets.
    static func unavailable(onLinux: Bool) -> NetworkError {
        let why =
            onLinux
            ? "corelibs URLSession cannot open WebSockets on Linux (its libcurl has no WebSocket support)"
            : "the session's transport cannot open WebSockets"
        return NetworkError(
            .webSocket,
            failureReason:
                "This session cannot open WebSockets: \(why). Set Session.Configuration.webSocketTransport "
                + "to a WebSocketTransport, such as the SwiftNIO one in Formwork's Examples package "
                + "(NIOWebSocketTransport).",
            details: .init(reason: .webSocketsUnavailable))
    }
}
