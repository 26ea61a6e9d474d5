/// What a ``WebSocket``'s reader reads with `for try await`: its messages (``WebSocket/messages()``)
/// or its updates (``WebSocket/updates()``).
///
/// It ends when the socket is closed, and throws the ``NetworkError`` that ended it otherwise.
/// Leaving the loop early (or cancelling the reading `Task`) cancels the socket.
public struct WebSocketSequence<Element: Sendable>: AsyncSequence, Sendable {
    let socket: WebSocket
    let transform: @Sendable (WebSocketBuffer.Item) -> Element?

    /// Starts the socket (if nothing did yet) and returns the reader.
    /// - Returns: The iterator.
    public func makeAsyncIterator() -> Iterator {
        socket.start()
        return Iterator(sequence: self, reader: Reader(socket: socket))
    }

    /// Reads the socket's items in order.
    public struct Iterator: AsyncIteratorProtocol {
        let sequence: WebSocketSequence
        let reader: Reader
        private var isDone = false

        init(sequence: WebSocketSequence, reader: Reader) {
            self.sequence = sequence
            self.reader = reader
        }

        /// Waits for the next item.
        /// - Returns: The item, or `nil` once the socket is closed.
        /// - Throws: ``NetworkError``: the failure that ended the socket, or a cancellation.
        public mutating func next() async throws -> Element? {
            guard !isDone else { return nil }
            let socket = sequence.socket
            while true {
                let next = await withTaskCancellationHandler {
                    await socket.next()
                } onCancel: {
                    socket.cancel()
                }
                switch next {
                case .item(let item):
                    if let element = sequence.transform(item) { return element }
                case .end(let error):
                    isDone = true
                    if let error { throw error }
                    return nil
                }
            }
        }
    }

    /// Cancels the socket when the reader is dropped (the loop was left).
    final class Reader: Sendable {
        let socket: WebSocket

        init(socket: WebSocket) {
            self.socket = socket
        }

        deinit {
            socket.cancel()
        }
    }
}
