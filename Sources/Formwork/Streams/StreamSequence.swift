import Foundation

/// The items of a ``StreamRequest``, read with `for try await`: events, lines, decoded JSON lines
/// or chunks.
///
/// It ends when the request finishes cleanly, and throws the request's ``NetworkError`` when it
/// fails. Leaving the loop early (or cancelling the reading `Task`) cancels the request.
public struct StreamSequence<Element: Sendable>: AsyncSequence, Sendable {
    let core: RequestCore
    let buffer: StreamBuffer
    let conflict: NetworkError?
    let transform: @Sendable (StreamItem) -> Result<Element, NetworkError>?
    /// Handed to the reader when the stream ends, before the end itself (`updates()`: closed).
    var closing: Element? = nil

    /// Starts the request (if nothing did yet) and returns the reader.
    /// - Returns: The iterator.
    public func makeAsyncIterator() -> Iterator {
        if conflict == nil { core.start() }
        // A reader refused for reading another way must not cancel the stream it was refused.
        return Iterator(
            sequence: self,
            reader: Reader(core: conflict == nil ? core : nil, buffer: conflict == nil ? buffer : nil))
    }

    /// Reads the stream's items in order.
    public struct Iterator: AsyncIteratorProtocol {
        let sequence: StreamSequence
        let reader: Reader
        private var isDone = false
        /// The failure that ends the stream, kept while the reader takes the closing element.
        private var pendingFailure: NetworkError?

        init(sequence: StreamSequence, reader: Reader) {
            self.sequence = sequence
            self.reader = reader
        }

        /// Waits for the next item.
        /// - Returns: The item, or `nil` once the stream ended cleanly (after the sequence's closing
        ///   element, if it has one).
        /// - Throws: ``NetworkError``: the request's failure, a line that does not decode, or a
        ///   cancellation.
        public mutating func next() async throws -> Element? {
            if isDone {
                defer { pendingFailure = nil }
                if let pendingFailure { throw pendingFailure }
                return nil
            }
            if let conflict = sequence.conflict {
                isDone = true
                throw conflict
            }
            let (core, buffer) = (sequence.core, sequence.buffer)
            while true {
                let next = await withTaskCancellationHandler {
                    await buffer.next {
                        core.lifecycleState == .finished || core.lifecycleState == .cancelled
                    }
                } onCancel: {
                    buffer.abandon()
                    core.cancel()
                }
                switch next {
                case .item(let item):
                    switch sequence.transform(item) {
                    case .success(let element): return element
                    case .failure(let error):
                        isDone = true
                        sequence.buffer.abandon()
                        core.cancel()
                        throw error
                    case nil: continue
                    }
                case .end(let error):
                    isDone = true
                    if let closing = sequence.closing {
                        pendingFailure = error
                        return closing
                    }
                    if let error { throw error }
                    return nil
                }
            }
        }
    }

    /// Cancels the request when the reader is dropped (the loop was left).
    final class Reader: Sendable {
        let core: RequestCore?
        let buffer: StreamBuffer?

        init(core: RequestCore?, buffer: StreamBuffer?) {
            self.core = core
            self.buffer = buffer
        }

        deinit {
            buffer?.abandon()  // first: a transport waiting for this reader goes on at once
            core?.cancel()
        }
    }
}
