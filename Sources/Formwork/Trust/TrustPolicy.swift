import Foundation

/// Whom a session's requests trust, declared once: pins for some hosts (``PinSet``), private
/// roots for others (``TrustAnchors``), and client certificates (``ClientIdentity``).
///
/// Set it on ``Session/Configuration/trust``. The same value works on every transport that can
/// see the server's certificates: the built-in ``URLSessionTransport`` on Apple platforms (the
/// server-trust challenge) and a transport on SwiftNIO; a transport that cannot enforce a host's
/// rules (corelibs `URLSession` on Linux) fails such a request before sending a byte. Hosts no
/// rule covers are evaluated as without a policy.
///
/// ```swift
/// let trust = TrustPolicy(
///     pinSets: [try PinSet(hosts: ["api.example.com"], pins: [currentKeyPin, backupKeyPin])],
///     reportHandler: { report in print("trust:", report) })
/// let api = Session { $0.trust = trust }
/// ```
public struct TrustPolicy: Sendable {
    /// The pinned hosts. When several sets cover a host, the most specific pattern wins.
    public var pinSets: [PinSet]
    /// The hosts trusted through certificates of their own instead of the system's roots.
    public var anchors: [TrustAnchors]
    /// The client certificates presented to hosts that ask for one.
    public var clientIdentities: [ClientIdentity]
    /// Told, on Formwork's threads, when a report-only pin set did not match, when a pin set past
    /// its expiry was not enforced, and when a transport could not evaluate a report-only set
    /// (see ``TrustReport``). Session event monitors hear the same through
    /// ``EventMonitor/requestDidReportTrust(_:report:)``. Defaults to `nil`.
    public var reportHandler: (@Sendable (TrustReport) -> Void)?

    /// Creates a policy.
    /// - Parameters:
    ///   - pinSets: The pinned hosts. Defaults to none.
    ///   - anchors: The hosts with anchors of their own. Defaults to none.
    ///   - clientIdentities: The client certificates. Defaults to none.
    ///   - reportHandler: Told about report-only mismatches and expired pin sets. Defaults to `nil`.
    public init(
        pinSets: [PinSet] = [], anchors: [TrustAnchors] = [], clientIdentities: [ClientIdentity] = [],
        reportHandler: (@Sendable (TrustReport) -> Void)? = nil
    ) {
        self.pinSets = pinSets
        self.anchors = anchors
        self.clientIdentities = clientIdentities
        self.reportHandler = reportHandler
    }

    /// Whether the policy has no rule at all.
    var isEmpty: Bool { pinSets.isEmpty && anchors.isEmpty && clientIdentities.isEmpty }

    /// The rules that apply to `host` (see ``TrustRules``).
    /// - Parameter host: The host of a request, as in its URL.
    /// - Returns: The host's rules; empty when none covers it.
    public func rules(forHost host: String) -> TrustRules {
        TrustRules(
            host: HostPattern.normalized(host),
            pinSet: Self.best(pinSets, for: host, \.patterns),
            anchors: Self.best(anchors, for: host, \.patterns),
            clientIdentity: Self.best(clientIdentities, for: host, \.patterns))
    }

    /// The element whose most specific pattern that matches `host` is the most specific; the
    /// first one on a tie.
    private static func best<Rule>(_ rules: [Rule], for host: String, _ patterns: KeyPath<Rule, HostPatterns>)
        -> Rule?
    {
        var best: (rule: Rule, specificity: (Int, Int))?
        for rule in rules {
            guard let match = rule[keyPath: patterns].bestMatch(for: host) else { continue }
            if best == nil || best!.specificity < match.specificity { best = (rule, match.specificity) }
        }
        return best?.rule
    }
}

/// The rules of a ``TrustPolicy`` for one host: what a transport applies to a connection to it.
public struct TrustRules: Sendable, Hashable {
    /// The host, in lower case.
    public let host: String
    /// The pin set that covers the host, if any (also when it is report-only or expired: see
    /// ``TrustEvaluator/evaluate(host:certificateChain:)``).
    public let pinSet: PinSet?
    /// The anchors the host is trusted through instead of the system's roots, if any.
    public let anchors: TrustAnchors?
    /// The client certificate presented to the host, if any.
    public let clientIdentity: ClientIdentity?

    /// Whether no rule covers the host: the connection is evaluated as without a policy.
    public var isEmpty: Bool { pinSet == nil && anchors == nil && clientIdentity == nil }

    /// Whether a connection to the host can only be made right by a transport that sees its
    /// certificates: pins that are enforced and not expired at `now`, anchors, or a client
    /// identity.
    /// - Parameter now: The current time. Defaults to now.
    /// - Returns: Whether a transport that cannot evaluate certificates must refuse the request.
    public func needsCertificateAccess(at now: Date = Date()) -> Bool {
        anchors != nil || clientIdentity != nil
            || pinSet.map { $0.mode == .enforce && !$0.isExpired(at: now) } == true
    }
}

/// What a pin set reported instead of failing a request (see ``TrustPolicy/reportHandler`` and
/// ``EventMonitor/requestDidReportTrust(_:report:)``).
public struct TrustReport: Sendable, Hashable, CustomStringConvertible {
    /// What happened.
    public enum Outcome: Sendable, Hashable {
        /// A report-only pin set did not match the chain: the request went on.
        case mismatch
        /// The host's pin set is past its expiry: it was not enforced, the request went on.
        case pinSetExpired
        /// The transport cannot see the server's certificates, so the host's report-only pin set
        /// was not evaluated (corelibs `URLSession` on Linux); the request went on.
        case notEvaluated
    }

    /// What happened.
    public let outcome: Outcome
    /// The host.
    public let host: String
    /// The pins of the host's pin set, sorted.
    public let expectedPins: [String]
    /// The hashes of the public keys of the chain the server presented, leaf first (empty when it
    /// was not evaluated).
    public let presentedPins: [String]
    /// The pin set's expiry, if it has one.
    public let expires: Date?

    /// One line: the outcome, the host, and the hashes.
    public var description: String {
        "TrustReport(\(outcome), host: \(host), expected: \(expectedPins.joined(separator: ", ")), "
            + "presented: \(presentedPins.joined(separator: ", ")))"
    }
}
