import Foundation

/// The values of one attempt: what it sends, its task, what it received and how far it got.
///
/// It lives only inside ``RequestStateMachine/State``: the state of a running attempt carries it,
/// and leaving that attempt (a retry, a restart, a reload) drops it, so every attempt starts
/// empty by construction. A retried request answered from the cache once delivered the failed
/// attempt's body glued to the cached one, when these values sat beside the machine and were reset
/// by hand.
///
/// A class, changed in place, because a measurement says so: as a value, every event (each body
/// chunk) copied the whole attempt out of the state and back, about 40k instructions more per
/// small request (counted instructions, same binary and inputs). Read and change it only under
/// the request's lock; out of the lock, code may hold the object to read its two constants
/// (``number`` and ``prepared``, which no thread changes), and takes copies of anything else.
final class RequestAttempt: @unchecked Sendable {  // variables only touched under its request's lock
    /// The attempt number (1, 2, ...; reloads count too).
    let number: Int
    /// The final request of the attempt, after adapters and checks. A constant, so that the
    /// request's steps out of the lock read it in place rather than copy it (each copy retains
    /// some fifteen references).
    let prepared: PreparedRequest
    /// The transport task the attempt runs on, until the request lets go of it.
    var task: (any TransportTask)?
    /// The response head, once it arrived.
    var response: ResponseHead?
    /// Where the response came from (the HTTP cache layer marks its answers).
    var delivery = CacheDelivery.network
    /// The body received in memory (everything, or an error body the sink declined).
    var body = Data()
    /// `true` while the body goes to the sink rather than to ``body``.
    var writesToSink = false
    /// The sink failed mid-body: the attempt ends with this error.
    var sinkFailure: NetworkError?
    /// Formwork failed the attempt itself on a transport's question (a refused redirect): the
    /// exchange's own end is read as this failure instead.
    var settledFailure: NetworkError?
    /// Body bytes sent so far.
    var bytesSent: Int64 = 0
    /// Body bytes received so far.
    var bytesReceived: Int64 = 0
    /// The latest progress of the attempt, if any bytes moved yet.
    var progress: TransferProgress?
    /// The last progress observers heard of.
    var notifiedProgress: TransferProgress?

    init(number: Int, prepared: PreparedRequest) {
        self.number = number
        self.prepared = prepared
    }
}
