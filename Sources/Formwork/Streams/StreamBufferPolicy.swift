/// What a stream does when its reader falls more than its `bufferLimit:` (the argument of
/// ``Session/stream(_:bufferLimit:bufferPolicy:reconnection:)``) bytes behind the server.
public enum StreamBufferPolicy: Sendable, Hashable {
    /// Stops reading from the network until the reader has caught up (half the limit is left),
    /// so the server is slowed down by TCP's own flow control: nothing is dropped and memory stays
    /// bounded. The default.
    ///
    /// Over the AsyncHTTPClient transport only this stream's connection waits. Over URLSession on
    /// Linux, corelibs reads every `URLSession` of the process on one queue, which waits too while
    /// the reader is behind (see the Platform notes); a request Formwork starts meanwhile ends the
    /// wait at once, the stream's bytes then waiting in memory until the reader catches up.
    case slowDown
    /// Keeps the newest items: the oldest unread ones are dropped to make room. For a live screen
    /// that only shows the latest state.
    case dropOldest
    /// Ends the stream with a ``NetworkError/Kind/streamBufferOverflow`` error, after the reader
    /// has had every item that arrived before.
    case fail
}
