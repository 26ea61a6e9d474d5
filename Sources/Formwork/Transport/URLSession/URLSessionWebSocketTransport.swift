import Foundation

#if !canImport(FoundationNetworking)
    /// WebSockets over `URLSessionWebSocketTask`, on Apple platforms: what a session over
    /// URLSession uses when ``Session/Configuration/webSocketTransport`` is `nil`.
    ///
    /// Apple's task reports the opening and the server's close frame to a delegate of the task
    /// (``WebSocketTaskDelegate``); a handshake the server refuses leaves the task's `response`
    /// (the status; URLSession gives no body).
    struct URLSessionWebSocketTransport: WebSocketTransport {
        let session: URLSession

        func connect(_ request: URLRequest, subprotocols: [String], maximumMessageSize: Int) async throws
            -> any WebSocketConnection
        {
            let task = session.webSocketTask(with: request)
            task.maximumMessageSize = maximumMessageSize
            let delegate = WebSocketTaskDelegate()
            task.delegate = delegate
            let subprotocol: String?
            do {
                subprotocol = try await withTaskCancellationHandler {
                    try await delegate.waitForOpen(resuming: task)
                } onCancel: {
                    task.cancel()
                }
            } catch {
                throw Self.handshakeError(error, task: task, request: request)
            }
            return URLSessionWebSocketConnection(task: task, delegate: delegate, subprotocol: subprotocol)
        }

        /// A failure before the socket opened: the server's refusal when it answered, else the
        /// transport's error.
        static func handshakeError(_ error: any Error, task: URLSessionWebSocketTask, request: URLRequest)
            -> NetworkError
        {
            if let response = task.response as? HTTPURLResponse, response.statusCode != 101 {
                return NetworkError(
                    .webSocket,
                    failureReason:
                        "The server refused the WebSocket handshake with status \(response.statusCode).",
                    details: .init(reason: .webSocketHandshakeRefused), underlyingError: error,
                    request: request,
                    response: response)
            }
            return .transport(error, request: request, response: nil, data: nil)
        }
    }

    /// The delegate of one `URLSessionWebSocketTask`: when it opened (or failed first), and the
    /// server's close frame.
    final class WebSocketTaskDelegate: NSObject, URLSessionWebSocketDelegate, Sendable {
        private struct State {
            var opened: Result<String?, any Error>?
            var waiter: CheckedContinuation<String?, any Error>?
            var serverClose: WebSocketClose?
        }

        private let state = Protected(State())

        /// The server's close frame, once it arrived.
        var serverClose: WebSocketClose? { state.withLock { $0.serverClose } }

        /// Resumes `task` and waits until it opened; returns the subprotocol chosen.
        func waitForOpen(resuming task: URLSessionWebSocketTask) async throws -> String? {
            try await withCheckedThrowingContinuation { continuation in
                state.withLock { $0.waiter = continuation }
                task.resume()
            }
        }

        private func settle(_ result: Result<String?, any Error>) {
            let waiter = state.withLock { state -> CheckedContinuation<String?, any Error>? in
                guard state.opened == nil else { return nil }
                state.opened = result
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(with: result)
        }

        func urlSession(
            _ session: URLSession, webSocketTask: URLSessionWebSocketTask,
            didOpenWithProtocol protocol: String?
        ) {
            settle(.success(`protocol`))
        }

        func urlSession(
            _ session: URLSession, webSocketTask: URLSessionWebSocketTask,
            didCloseWith closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?
        ) {
            let close = WebSocketClose(
                code: WebSocketCloseCode(rawValue: UInt16(clamping: closeCode.rawValue)),
                reason: reason.map { String(decoding: $0, as: UTF8.self) } ?? "")
            state.withLock { $0.serverClose = close }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?)
        {
            settle(.failure(error ?? URLError(.networkConnectionLost)))
        }
    }

    /// One open `URLSessionWebSocketTask`.
    final class URLSessionWebSocketConnection: WebSocketConnection {
        private let task: URLSessionWebSocketTask
        private let delegate: WebSocketTaskDelegate
        let subprotocol: String?

        init(task: URLSessionWebSocketTask, delegate: WebSocketTaskDelegate, subprotocol: String?) {
            self.task = task
            self.delegate = delegate
            self.subprotocol = subprotocol
        }

        func receive() async throws -> WebSocketInbound {
            let message: URLSessionWebSocketTask.Message
            do {
                message = try await task.receive()
            } catch {
                // The server's close frame ends `receive()` with an error; the delegate has it (or,
                // should the error come first, the task's `closeCode`).
                if let close = delegate.serverClose ?? Self.closeFrame(of: task) { return .close(close) }
                if (error as NSError).domain == NSPOSIXErrorDomain, (error as NSError).code == Int(EMSGSIZE) {
                    throw NetworkError(
                        .webSocket, failureReason: "The server sent a WebSocket message over the limit.",
                        details: .init(reason: .webSocketMessageTooBig), underlyingError: error)
                }
                throw NetworkError.transport(error, request: task.originalRequest, response: nil, data: nil)
            }
            switch message {
            case .string(let text): return .message(.text(text))
            case .data(let data): return .message(.binary(data))
            @unknown default:
                throw NetworkError(
                    .webSocket, failureReason: "URLSession delivered a WebSocket message of an unknown kind.",
                    details: .init(reason: .webSocketProtocolError))
            }
        }

        /// The server's close frame as the task keeps it (`closeCode` is `invalid` until the task
        /// closed; `abnormalClosure` means no close frame came: a drop, not a close).
        static func closeFrame(of task: URLSessionWebSocketTask) -> WebSocketClose? {
            let code = task.closeCode
            guard code != .invalid, code != .abnormalClosure else { return nil }
            return WebSocketClose(
                code: WebSocketCloseCode(rawValue: UInt16(clamping: code.rawValue)),
                reason: task.closeReason.map { String(decoding: $0, as: UTF8.self) } ?? "")
        }

        func send(_ message: WebSocketMessage) async throws {
            switch message {
            case .text(let text): try await task.send(.string(text))
            case .binary(let data): try await task.send(.data(data))
            }
        }

        func sendPing() async throws {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<Void, any Error>) in
                task.sendPing { error in
                    if let error { continuation.resume(throwing: error) } else { continuation.resume() }
                }
            }
        }

        func close(_ close: WebSocketClose) async {
            let code = URLSessionWebSocketTask.CloseCode(rawValue: Int(close.code.rawValue)) ?? .normalClosure
            task.cancel(with: code, reason: close.reason.isEmpty ? nil : Data(close.reason.utf8))
        }

        func cancel() {
            task.cancel()
        }
    }
#endif
