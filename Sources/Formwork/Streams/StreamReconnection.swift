import Foundation

/// When an event stream reconnects after its connection ends.
///
/// The wait is the server's latest `retry:` (or ``defaultRetry``), doubled for each further
/// connection in a row that brought no event, capped at ``maximumDelay``, then lengthened by up
/// to ``jitter`` of itself so that many clients dropped at once do not return at once. It is
/// never shorter than what the server asked for, unless that is above the cap.
///
/// ``never`` reads one connection only: the stream ends when its connection ends.
public struct StreamReconnection: Sendable, Equatable {
    /// The wait when the server never sent `retry:` (3 seconds, as browsers use).
    public var defaultRetry: TimeInterval
    /// The longest wait, whatever the server or the back-off asks (30 seconds).
    public var maximumDelay: TimeInterval
    /// The most added to a wait at random, as a fraction of it (0.25: up to a quarter more).
    public var jitter: Double
    /// How many connections in a row may end without an event before the stream gives up with
    /// the last failure; `nil` (the default) reconnects for as long as the stream is read.
    public var maximumQuietConnections: Int?
    /// Whether the stream connects again when a connection ends (the default). When `false`, the
    /// stream ends with its first connection: a clean end by the server ends the sequence
    /// normally, a dropped connection throws its ``NetworkError`` (a retrier set on the request or
    /// session is still asked, as for any request).
    public var reconnects: Bool

    /// Creates a reconnection policy.
    /// - Parameters:
    ///   - defaultRetry: The wait when the server sent no `retry:`.
    ///   - maximumDelay: The cap on every wait.
    ///   - jitter: The most added at random, as a fraction of the wait.
    ///   - maximumQuietConnections: Connections in a row without an event before giving up; `nil`
    ///     for no limit.
    ///   - reconnects: `false` to end the stream with its first connection.
    public init(
        defaultRetry: TimeInterval = 3, maximumDelay: TimeInterval = 30, jitter: Double = 0.25,
        maximumQuietConnections: Int? = nil, reconnects: Bool = true
    ) {
        self.defaultRetry = defaultRetry
        self.maximumDelay = maximumDelay
        self.jitter = jitter
        self.maximumQuietConnections = maximumQuietConnections
        self.reconnects = reconnects
    }

    /// Reconnects as browsers do: 3 s unless the server says otherwise, capped at 30 s, with jitter.
    public static let `default` = StreamReconnection()

    /// One connection only: the event stream ends when its connection ends, cleanly (the sequence
    /// ends) or not (it throws the connection's error). For a server that closes the stream when
    /// it is done, or an app that reconnects by itself.
    public static let never = StreamReconnection(reconnects: false)
}

/// The rules of an event stream's connections, as the WHATWG HTML standard gives them, plus the
/// reconnection policy. Pure: the engine asks, the state machine schedules the new attempt.
enum EventStreamRule {
    /// A connection of an event stream ended cleanly: reconnect (not a failure of the request).
    struct EndOfConnection: Error, CustomStringConvertible {
        var description: String { "The event stream's connection ended; it reconnects." }
    }

    /// What the rule needs to know about the stream so far.
    struct Facts: Equatable {
        /// The server's latest `retry:` in milliseconds.
        var retry: Int?
        /// Connections in a row, this one included, that brought no event.
        var quietConnections: Int
    }

    /// Why a response cannot be read as an event stream, or `nil` when it can. Only a 200 with
    /// `Content-Type: text/event-stream` is read; a 204 ends the stream cleanly; anything else
    /// fails it for good. Non-2xx statuses are the request's status validation's to report.
    static func rejection(of response: HTTPURLResponse) -> NetworkError? {
        let status = response.statusCode
        guard (200..<300).contains(status), status != 204 else { return nil }
        guard status == 200 else {
            return NetworkError(
                .validationFailed,
                failureReason: "An event stream must answer 200 (or 204 to stop); it answered \(status).",
                response: response)
        }
        let type = response.value(forHTTPHeaderField: "Content-Type") ?? ""
        let essence = type.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard essence.lowercased() == "text/event-stream" else {
            return NetworkError(
                .validationFailed,
                failureReason:
                    "An event stream must have Content-Type text/event-stream; it had \(type.isEmpty ? "none" : type).",
                response: response)
        }
        return nil
    }

    /// The least wait once connections keep ending without an event (seconds).
    static let quietFloor = 0.1

    /// Whether a failed connection is followed by another one: after a clean end of a 200 event
    /// stream or a transport failure (connection lost, refused, timed out), yes; after a status
    /// or content type the stream rejects, a full buffer or a cancel, no.
    static func reconnects(after failure: NetworkError) -> Bool {
        if failure.kind == .transport { return true }
        return failure.kind == .validationFailed && failure.underlyingError is EndOfConnection
    }

    /// The wait before the next connection, or `nil` when the stream ends with `failure`.
    /// - Parameter random: A number in 0...1 that picks the jitter.
    static func reconnectDelay(
        after failure: NetworkError, facts: Facts, policy: StreamReconnection, random: Double
    ) -> TimeInterval? {
        guard policy.reconnects, reconnects(after: failure) else { return nil }
        if let limit = policy.maximumQuietConnections, facts.quietConnections > limit { return nil }
        var base = max(facts.retry.map { Double($0) / 1000 } ?? policy.defaultRetry, 0)
        // A server that asks for no wait and keeps failing must not be hammered in a tight loop.
        if facts.quietConnections > 1 { base = max(base, Self.quietFloor) }
        let doublings = Double(min(max(facts.quietConnections - 1, 0), 16))
        let wait = min(base * pow(2, doublings), max(policy.maximumDelay, 0))
        return wait * (1 + max(policy.jitter, 0) * min(max(random, 0), 1))
    }
}
