import AsyncHTTPClient
import Formwork
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A Formwork ``Transport`` on AsyncHTTPClient (SwiftNIO): for Linux services, where it costs a
/// fraction of the CPU of corelibs `URLSession`.
///
/// Use it with `Session { $0.transport = AsyncHTTPClientTransport() }`. Formwork keeps every rule
/// of its own (adapters, retries, validation, decoding, hooks, credentials on redirects); this
/// transport carries each exchange:
/// - redirects (301, 302, 303, 307, 308 with a `Location`) are followed here, at most 16 hops,
///   each one asked of Formwork first; a 303 (and a 301/302 of a `POST`) becomes a `GET` without
///   a body, as in browsers and `URLSession`;
/// - a `401` offering `Basic` (or a `407` with `Proxy-Authenticate: Basic`) is answered with the
///   credential Formwork gives; any other scheme, or no credential, delivers the challenge's
///   response as the response;
/// - each hop of an exchange goes out on AsyncHTTPClient's delegate API from the thread that
///   starts it, without a Swift task: the response's calls arrive on an event loop, Formwork's
///   events run there (they are cheap; a body that goes to disk is the exception, below), and
///   the caller waiting for the response is woken once;
/// - a request without a body sent again (the same URL, method and header fields, as a session
///   sends a form it remembers) goes out on the AsyncHTTPClient request made for it the first
///   time: making one parses its URL again. The transport keeps the last eight such requests,
///   header fields included;
/// - a request that starts while none of the transport's others run prefers the event loop of the
///   last one, where its kept-alive connection lives (no hop between loops' threads); requests
///   that run together spread over the group's loops;
/// - response bodies are streamed with back-pressure: the next part is read when the previous
///   one was handed over; when the body goes to disk (``TransportRequest/bodyMayBlock``) it is
///   handed to a serial queue in batches, one at a time: what arrives while Formwork writes a
///   batch is gathered into the next (up to 512 KiB, then reading pauses until it is taken), so a
///   download is written in large writes with one hand-over per batch;
/// - request bodies from files and streams are read in 64 KiB chunks (constant memory), on a
///   queue of their own;
/// - a session's ``TrustPolicy`` is enforced: a host's anchors and client certificate go into the
///   hop's TLS configuration, and a host with pins goes out on a client of the transport's own
///   whose every new connection is checked against them before a request is sent on it (see
///   ``PinnedHosts``).
///
/// Not handled: cookies (`URLSession`'s `HTTPCookieStorage` has no equivalent here; set `Cookie`
/// headers with a request adapter) and automatic decompression (no `Accept-Encoding` is added and
/// compressed bodies arrive as sent).
///
/// Differences Formwork's behaviour suite shows against `URLSession` (see the Transports
/// article): AsyncHTTPClient allows 8 connections per host by default, and a request waiting for
/// one spends its idle timeout (raise `connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit`
/// on a client of your own when streams hold many); when a server cuts a body, the bytes
/// AsyncHTTPClient had read but not handed over are dropped (a resume asks for them again); a
/// `POST` on a reused connection the server had closed is not sent again (it fails as connection
/// lost, where libcurl re-sends it).
public final class AsyncHTTPClientTransport: Transport {
    /// The client the transport runs on when none is given: the default event loop group,
    /// redirects left to the transport, no decompression, no read timeout (Formwork watches idle
    /// timeouts itself). It is never shut down.
    public static let sharedClient = HTTPClient(
        eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: recommendedConfiguration)

    /// The client configuration the transport expects: redirects `.disallow`ed (the transport
    /// follows them itself so Formwork can decide each hop), decompression disabled, a failed
    /// connection attempt reported at once (as `URLSession` does: Formwork's retry policy decides
    /// about retries; AsyncHTTPClient would retry until its connect timeout, 10 s, before it
    /// reports a refused connection), and no timeouts of its own: Formwork's idle timeout (the
    /// form's or the session's) covers the whole exchange, from the wait for a free connection of
    /// the pool to the last byte, as `URLRequest.timeoutInterval` does for `URLSession`
    /// (AsyncHTTPClient's connect timeout, 10 s by default, would otherwise also fail a request
    /// that waits longer than that for a connection to a busy host). AsyncHTTPClient's own
    /// tracing is off (`tracing.tracer` is `nil`): the delegate API this transport uses starts a
    /// span per request even when no tracer was bootstrapped (about 35,000 instructions per small
    /// request, a twelfth of its cost), and with one it would be a second span beside the one
    /// `FormworkObservability` records; set `tracing.tracer` on your copy to keep its spans.
    /// Start from it when you make your own client.
    public static var recommendedConfiguration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: .hours(24), read: nil),
            decompression: .disabled)
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.tracing.tracer = nil
        return configuration
    }

    /// The client that carries the requests.
    public let client: HTTPClient
    /// The loop each hop's delegate runs on (see ``LoopChooser``).
    let loops: LoopChooser
    /// The clients of hosts with pins (see ``PinnedHosts``): none until a request to one.
    let pinnedHosts: PinnedHosts
    /// AsyncHTTPClient's requests for the last requests without a body (see ``HopRequests``).
    let hopRequests = HopRequests()

    /// Creates a transport.
    ///
    /// `HTTPClient.shared` is not the default: it follows redirects itself (Formwork would not
    /// see them) and decompresses bodies. A client of your own should start from
    /// ``recommendedConfiguration``; you shut it down when you no longer need it.
    /// - Parameter client: The client to use (default ``sharedClient``).
    public init(client: HTTPClient = AsyncHTTPClientTransport.sharedClient) {
        self.client = client
        self.loops = LoopChooser(group: client.eventLoopGroup)
        self.pinnedHosts = PinnedHosts(group: client.eventLoopGroup)
    }

    /// Makes the task of one exchange: no I/O and no event until it is resumed.
    /// - Parameters:
    ///   - request: What to send.
    ///   - events: Where the exchange's events go.
    /// - Returns: The task, not started.
    public func makeTask(for request: TransportRequest, events: any TransportEvents) -> any TransportTask {
        AsyncHTTPClientTransportTask(transport: self, request: request, events: events)
    }

    /// The most redirects one exchange follows before it fails with `.httpTooManyRedirects`.
    static let maximumRedirects = 16
    /// The most answers to one kind of challenge before its response is delivered as it is.
    static let maximumAuthenticationAnswers = 16
    /// When the body may block (``TransportRequest/bodyMayBlock``): the most response bytes
    /// gathered while Formwork receives the batch before them (one `receiveBody` call each); the
    /// network pauses at this many until Formwork takes them (see ``BodyBatches``).
    static let batchLimit = 512 << 10
    /// The size of the chunks read from upload files and streams.
    static let uploadChunkSize = 64 << 10

    /// Turns an AsyncHTTPClient or SwiftNIO error into the `URLError` Formwork's retry and message
    /// rules know: refused → `.cannotConnectToHost`; connect, read and TLS handshake timeouts →
    /// `.timedOut`; a connection closed or reset mid-exchange → `.networkConnectionLost`;
    /// cancelled → `.cancelled`; TLS failures → `.secureConnectionFailed` (a certificate that does
    /// not verify → `.serverCertificateUntrusted`); bad URL → `.badURL`; unsupported scheme →
    /// `.unsupportedURL`; DNS → `.cannotFindHost`; anything else → `.unknown`. A `URLError` or
    /// `NetworkError` (the transport's own, or a body stream's) is returned as it is. The original
    /// error is kept as `NSUnderlyingErrorKey`.
    /// - Parameter error: What failed.
    /// - Returns: The error to finish the exchange with.
    static func urlError(for error: any Error) -> any Error {
        if error is URLError || error is NetworkError { return error }
        let userInfo: [String: Any] = [NSUnderlyingErrorKey: error, NSLocalizedDescriptionKey: "\(error)"]
        return URLError(code(for: error), userInfo: userInfo)
    }

    /// The `URLError` code of ``urlError(for:)``.
    private static func code(for error: any Error) -> URLError.Code {
        switch error {
        case let error as HTTPClientError:
            switch error {
            case .connectTimeout, .readTimeout, .writeTimeout, .tlsHandshakeTimeout, .deadlineExceeded,
                .getConnectionFromPoolTimeout, .socksHandshakeTimeout, .httpProxyHandshakeTimeout:
                return .timedOut
            case .remoteConnectionClosed, .uncleanShutdown: return .networkConnectionLost
            case .cancelled, .requestStreamCancelled: return .cancelled
            case .invalidURL, .emptyHost, .emptyScheme, .missingSocketPath: return .badURL
            default:
                return error.shortDescription == "Unsupported scheme" ? .unsupportedURL : .unknown
            }
        case is CancellationError: return .cancelled
        case let error as NIOConnectionError:
            // Every address refused, or none found.
            if let first = error.connectionErrors.first { return code(for: first.error) }
            return .cannotFindHost
        case is SocketAddressError: return .cannotFindHost
        case let error as IOError: return code(forErrno: error.errnoCode)
        case let error as ChannelError:
            switch error {
            case .connectTimeout: return .timedOut
            case .eof, .ioOnClosedChannel, .alreadyClosed, .outputClosed: return .networkConnectionLost
            default: return .unknown
            }
        case let error as HTTPParserError:
            return error == .invalidEOFState ? .networkConnectionLost : .badServerResponse
        case let error as NIOSSLError:
            return "\(error)".contains("CERTIFICATE_VERIFY_FAILED")
                ? .serverCertificateUntrusted : .secureConnectionFailed
        case let error as NIOSSLExtraError:
            return error == .failedToValidateHostname ? .serverCertificateUntrusted : .secureConnectionFailed
        case is BoringSSLError: return .secureConnectionFailed
        default:
            #if canImport(Network)
                if let error = error as? HTTPClient.NWPOSIXError {
                    return code(forErrno: error.errorCode.rawValue)
                }
                if error is HTTPClient.NWTLSError { return .secureConnectionFailed }
            #endif
            return .unknown
        }
    }

    /// The `URLError` code of a socket error number.
    private static func code(forErrno number: CInt) -> URLError.Code {
        switch number {
        case ECONNREFUSED, ENETUNREACH, EHOSTUNREACH, EADDRNOTAVAIL: return .cannotConnectToHost
        case ECONNRESET, EPIPE, ECONNABORTED: return .networkConnectionLost
        case ETIMEDOUT: return .timedOut
        default: return .unknown
        }
    }
}

/// Picks the event loop each hop's delegate runs on. A hop that starts while none of the
/// transport's other hops runs takes the loop of the last hop (whose idle connection, if the
/// server kept it, lives there: AsyncHTTPClient prefers connections on the delegate's loop, so the
/// response's calls need no hop between loops' threads); one that starts while others run takes
/// the next loop of the group, so concurrent requests spread over every loop.
final class LoopChooser: Sendable {
    private struct State: Sendable {
        var running = 0
        var last: (any EventLoop)?
    }

    private let group: any EventLoopGroup
    private let state = NIOLockedValueBox(State())

    init(group: any EventLoopGroup) {
        self.group = group
    }

    /// The loop for a hop that starts now; give it back with ``giveBack(_:)`` when the hop ends.
    func take() -> any EventLoop {
        state.withLockedValue { state in
            state.running += 1
            if state.running == 1, let last = state.last { return last }
            return group.next()
        }
    }

    /// A hop that ran on `loop` ended.
    func giveBack(_ loop: any EventLoop) {
        state.withLockedValue { state in
            state.running -= 1
            state.last = loop
        }
    }
}

/// The AsyncHTTPClient requests made for the transport's last few requests without a body, so
/// that a request sent again (the same URL, method and header fields, as a session sends a form it
/// remembers) is not made again: making one parses its URL again (about 16,000 instructions for a
/// small GET on Linux, most of the cost of a request's start). A request that differs in anything
/// it carries is made anew; at most ``capacity`` are kept, the oldest replaced first, each with
/// its header fields (an `Authorization` field among them) until it is replaced or the transport
/// goes.
final class HopRequests: Sendable {
    /// What a request without a body and without TLS settings of its own is made from.
    struct Key: Sendable, Equatable {
        let url: URL
        let method: String
        /// The `URLRequest`'s header fields as Formwork set them.
        let fields: [String: String]
    }

    private struct State: Sendable {
        var entries: [(key: Key, request: HTTPClient.Request)] = []
        /// Where the next new entry goes once the list is full.
        var next = 0
    }

    /// The most requests kept.
    static let capacity = 8
    private let state = NIOLockedValueBox(State())

    /// The request made before for `key`, if it is still kept.
    func request(for key: Key) -> HTTPClient.Request? {
        state.withLockedValue { state in state.entries.first { $0.key == key }?.request }
    }

    /// Keeps `request`, made for `key`.
    func remember(_ request: HTTPClient.Request, for key: Key) {
        state.withLockedValue { state in
            if state.entries.count < Self.capacity {
                state.entries.append((key, request))
            } else {
                state.entries[state.next] = (key, request)
                state.next = (state.next + 1) % Self.capacity
            }
        }
    }
}
