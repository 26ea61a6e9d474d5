import ExampleSupport
import Foundation

/// The benchmark's command line.
///
///     Benchmark [--size BYTES] [--requests N] [--rounds R] [--transfer-rounds R] [--quick]
///               [--only PHASE] [--server URL] [--side SIDE]
///               [--link rtt=40ms,rate=400mbit [--link-only] [--link-size BYTES] [--link-requests N]]
struct Options: Sendable {
    /// One side of the comparison, to profile it alone (`--side`): raw URLSession or Formwork (over
    /// URLSession); in the transports phase also bare AsyncHTTPClient or Formwork over it.
    enum Side: String, Sendable {
        case raw
        case formwork
        case ahc
        case formworkAHC = "formwork-ahc"
    }

    /// One variant of the features phase: the bare transport, a Formwork session with nothing
    /// switched on, or that session with one feature on (`--side` names one to count it alone).
    enum Feature: String, CaseIterable, Sendable {
        /// Raw `URLSession.data(for:)` + `JSONDecoder`, without a URLCache.
        case bare
        /// `bare` with the configuration's cookie accept policy `.never`: raw `URLSession` without
        /// corelibs reading every response header line as a cookie (on Linux, Formwork's
        /// sessions skip that read and keep cookies themselves).
        case bareNoCookies = "bare-no-cookies"
        /// A session with no cache, no coalescing, no monitors, no retriers.
        case plain
        /// `plain` set up as `bare-no-cookies` is: its `URLSession` configuration's cookie accept
        /// policy `.never` (so Formwork keeps no cookies either) and no `User-Agent` of its own
        /// (corelibs then sends its default one, as it does for `bare`): the same work as
        /// `bare-no-cookies`, through Formwork.
        case plainNoCookies = "plain-no-cookies"
        /// `plain` with an in-memory `HTTPCache` (every request misses: `/weather` is not storable).
        case cache
        /// `plain` with coalescing on (the session default).
        case coalescing
        /// `plain` with one event monitor that does nothing.
        case monitor
        /// `plain` with a `RetryPolicy` that never fires (every request succeeds).
        case retrier
        /// `plain`, each request made and awaited on the main actor: what the two hooks below
        /// add to, since they run there.
        case mainActor = "main-actor"
        /// `main-actor` with a progress observer on each request.
        case progress
        /// `main-actor` with `.load(...)` showing a headless mask on each request.
        case loadHook = "load-hook"
    }

    /// The phases the benchmark can run.
    enum Phase: String, CaseIterable, Sendable {
        case small
        case download
        case upload
        case resume
        case coalescing
        case cache
        case transports
        case outbox
        case features
    }

    /// Bytes per download and upload (1 GiB by default, 64 MiB with `--quick`).
    var size: Int64 = 1 << 30
    /// Small requests per side and round (2000 by default, 300 with `--quick`).
    var requests = 2000
    /// Interleaved rounds of small requests; the median round is reported.
    var rounds = 5
    /// Interleaved rounds of each download and upload; the median is reported.
    var transferRounds = 3
    /// How many small requests are in flight in the concurrent phase.
    var concurrency = 64
    /// The phases to run, in order: all but `features`, which runs only with `--only features`.
    var phases = Phase.allCases.filter { $0 != .features }
    /// `true` with `--quick`.
    var quick = false
    /// A running DemoServer to use instead of starting one (`--server URL`).
    var server: String?
    /// Only this side of the small requests (`--side`), e.g. under callgrind.
    var side: Side?
    /// Only this variant of the features phase (`--side` with `--only features`), e.g. under callgrind.
    var feature: Feature?
    /// A simulated link (`--link rtt=40ms,rate=400mbit`): the small requests and the download run
    /// again through a `LinkProxy` in front of the server.
    var link: LinkSpec?
    /// Run only the pass over the link (`--link-only`), not the loopback phases.
    var linkOnly = false
    /// Bytes per download over the link (256 MiB by default, 64 MiB with `--quick`).
    var linkSize: Int64 = 256 << 20
    /// Small requests per side and round over the link (200 by default, 40 with `--quick`): at
    /// 40 ms a round trip, one at a time, 200 take 8 s.
    var linkRequests = 200
    /// The link of the pass that is running (set by the benchmark, not the command line): `nil` on
    /// loopback. The phases choose their targets by it.
    var activeLink: LinkSpec?

    /// The phases that run over the link: those whose speed a real network changes.
    static let linkPhases: [Phase] = [.small, .download, .transports]

    static let usage = """
        usage: Benchmark [--size BYTES] [--requests N] [--rounds R] [--transfer-rounds R] [--quick]
                         [--only PHASE] [--server URL] [--side SIDE]
          --size BYTES          bytes per download and upload (default 1073741824; --quick: 67108864)
          --requests N          small requests per side and round (default 2000; --quick: 300)
          --rounds R            interleaved rounds of small requests (default 5)
          --transfer-rounds R   interleaved rounds of each transfer (default 3)
          --quick               the reduced sizes, for CI (about a minute in release)
          --only PHASE          run one phase: small, download, upload, resume, coalescing, cache,
                                transports (both transports beside bare URLSession and AsyncHTTPClient;
                                its download uses --size), outbox (enqueue cost) or features (what
                                each feature adds to a small request; not run without --only)
          --server URL          use a running DemoServer (e.g. under valgrind, which cannot start one)
          --side SIDE           small requests through one side only (to profile it): raw or formwork;
                                in the transports phase also ahc or formwork-ahc; in the features
                                phase one of bare, bare-no-cookies, plain, plain-no-cookies,
                                cache, coalescing, monitor, retrier, main-actor, progress,
                                load-hook
          --link SPEC           then run small requests, the download and the transports again over
                                a simulated link, e.g. rtt=40ms,rate=400mbit (a LinkProxy in front
                                of the server)
          --link-only           with --link: skip the loopback phases
          --link-size BYTES     bytes per download over the link (default 268435456; --quick: 67108864)
          --link-requests N     small requests per side and round over the link (default 200; --quick: 40)
        """

    /// A bad command line, with the reason.
    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    /// Parses the arguments (without the program name).
    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        if arguments.contains("--quick") {
            options.quick = true
            options.size = 64 << 20
            options.requests = 300
            options.linkSize = 64 << 20
            options.linkRequests = 40
        }
        var index = 0
        func next(_ flag: String) throws -> String {
            index += 1
            guard index < arguments.count else { throw Invalid(description: "\(flag) needs a value") }
            return arguments[index]
        }
        func positive(_ flag: String) throws -> Int {
            let text = try next(flag)
            guard let value = Int(text), value > 0 else {
                throw Invalid(description: "\(flag) needs a positive number, not \"\(text)\"")
            }
            return value
        }
        while index < arguments.count {
            let flag = arguments[index]
            switch flag {
            case "--quick": break
            case "--size": options.size = Int64(try positive(flag))
            case "--requests": options.requests = try positive(flag)
            case "--rounds": options.rounds = try positive(flag)
            case "--transfer-rounds": options.transferRounds = try positive(flag)
            case "--only":
                let name = try next(flag)
                guard let phase = Phase(rawValue: name) else {
                    throw Invalid(description: "unknown phase \"\(name)\"")
                }
                options.phases = [phase]
            case "--server": options.server = try next(flag)
            case "--side":
                let name = try next(flag)
                if let side = Side(rawValue: name) {
                    options.side = side
                } else if let feature = Feature(rawValue: name) {
                    options.feature = feature
                } else {
                    throw Invalid(description: "unknown side \"\(name)\"")
                }
            case "--link":
                do {
                    options.link = try LinkSpec(parsing: try next(flag))
                } catch let invalid as LinkSpec.Invalid {
                    throw Invalid(description: "--link: \(invalid.description)")
                }
            case "--link-only": options.linkOnly = true
            case "--link-size": options.linkSize = Int64(try positive(flag))
            case "--link-requests": options.linkRequests = try positive(flag)
            case "--help", "-h": throw Invalid(description: "")
            default: throw Invalid(description: "unknown argument \"\(flag)\"")
            }
            index += 1
        }
        if options.phases == [.features], let side = options.side {
            throw Invalid(description: "--side \(side.rawValue) is not a variant of the features phase")
        }
        if options.phases != [.features], let feature = options.feature {
            throw Invalid(description: "--side \(feature.rawValue) needs --only features")
        }
        if options.linkOnly, options.link == nil {
            throw Invalid(description: "--link-only needs --link")
        }
        guard options.size >= 2, options.linkSize >= 2 else {
            throw Invalid(description: "--size and --link-size must be at least 2 bytes")
        }
        return options
    }
}

extension Options {
    /// These options for the pass over `link`: the link's sizes and request counts, its phases.
    func overLink(_ link: LinkSpec) -> Options {
        var pass = self
        pass.activeLink = link
        pass.size = linkSize
        pass.requests = linkRequests
        pass.phases = phases.filter(Self.linkPhases.contains)
        return pass
    }

    /// Appended to section titles: where the pass runs.
    var network: String {
        activeLink.map { " over the link \($0)" } ?? " on loopback"
    }
}
