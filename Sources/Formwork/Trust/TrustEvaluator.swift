import Foundation

/// A session's ``TrustPolicy`` as a transport applies it to one exchange (see
/// ``TransportRequest/trust``): the rules of each host it connects to, and the verdict on the
/// chain a server presented.
///
/// A transport that can see the server's certificates:
/// 1. applies ``TrustRules/anchors`` (instead of the system's roots) and
///    ``TrustRules/clientIdentity`` of ``rules(forHost:)`` to the connection;
/// 2. evaluates the chain as it would without a policy (dates, host name, roots or anchors);
/// 3. then calls ``evaluate(host:certificateChain:)`` with the chain, and refuses the connection
///    when it returns an error (finishing the exchange with that error).
///
/// A transport that cannot see them calls
/// ``refusal(forHostWithoutEvaluation:transportName:appliesAnchorsAndIdentity:)``
/// before it sends anything, and fails the exchange with the error it returns.
///
/// Reports (a report-only mismatch, an expired pin set) go to the policy's
/// ``TrustPolicy/reportHandler`` and to the session's event monitors.
public final class TrustEvaluator: Sendable {
    /// The policy.
    public let policy: TrustPolicy
    /// Where reports go besides the policy's handler (the session's monitors, with the request's id).
    private let monitorReport: (@Sendable (TrustReport) -> Void)?

    /// Creates an evaluator for a policy (Formwork makes one per exchange of a session with a
    /// policy; make one yourself to test a transport).
    /// - Parameter policy: The policy.
    public convenience init(policy: TrustPolicy) {
        self.init(policy: policy, monitorReport: nil)
    }

    init(policy: TrustPolicy, monitorReport: (@Sendable (TrustReport) -> Void)?) {
        self.policy = policy
        self.monitorReport = monitorReport
    }

    /// The rules for a host the transport connects to (the request's, or a redirect's).
    /// - Parameter host: The host, as in the URL.
    /// - Returns: Its rules; empty when none covers it.
    public func rules(forHost host: String) -> TrustRules {
        policy.rules(forHost: host)
    }

    /// The verdict on a chain that passed the platform's own evaluation: `nil` when the request
    /// may go on (no pin set, a pinned key in the chain, a report-only mismatch, an expired set),
    /// else the ``NetworkError/Kind/serverTrust`` error to fail it with, which lists the pins
    /// expected and the hashes presented.
    /// - Parameters:
    ///   - host: The host connected to.
    ///   - certificateChain: The chain the server presented (or the one the platform built),
    ///     leaf first, in DER.
    /// - Returns: `nil` to go on, or the error to fail with.
    public func evaluate(host: String, certificateChain: [Data]) -> NetworkError? {
        evaluate(host: host, certificateChain: certificateChain, now: Date())
    }

    func evaluate(host: String, certificateChain: [Data], now: Date) -> NetworkError? {
        let rules = policy.rules(forHost: host)
        guard let pinSet = rules.pinSet else { return nil }
        let presented = certificateChain.map { CertificateReader.pin(of: $0) ?? "(unreadable certificate)" }
        if pinSet.isExpired(at: now) {
            report(.pinSetExpired, rules.host, pinSet, presented)
            return nil
        }
        if presented.contains(where: pinSet.pins.contains) { return nil }
        if pinSet.mode == .reportOnly {
            report(.mismatch, rules.host, pinSet, presented)
            return nil
        }
        let expected = pinSet.pins.sorted()
        return NetworkError(
            .serverTrust,
            failureReason:
                "The certificate chain of \(rules.host) has none of its pins. Expected: "
                + expected.joined(separator: ", ") + ". Presented (leaf first): "
                + (presented.isEmpty ? "no certificate" : presented.joined(separator: ", "))
                + ". If the server's key changed on purpose, add its pin to the PinSet.",
            details: .init(
                reason: .pinMismatch, host: rules.host, expectedPins: expected, presentedPins: presented))
    }

    /// For a transport that cannot see the server's certificates, before it sends anything: the
    /// ``NetworkError/Reason/trustNotEnforceable`` error to fail the request with when the host's
    /// rules need certificates (enforced pins, anchors, a client identity), else `nil` (and a
    /// report when a report-only set goes unevaluated or an expired set is not enforced).
    /// - Parameters:
    ///   - host: The host the request goes to.
    ///   - transportName: The transport's name, for the message.
    ///   - appliesAnchorsAndIdentity: Whether the transport applies the host's anchors and client
    ///     identity itself, so that only enforced pins are refused. Defaults to `false`.
    /// - Returns: `nil` to send, or the error to fail with.
    public func refusal(
        forHostWithoutEvaluation host: String, transportName: String, appliesAnchorsAndIdentity: Bool = false
    ) -> NetworkError? {
        refusal(
            forHostWithoutEvaluation: host, transportName: transportName,
            appliesAnchorsAndIdentity: appliesAnchorsAndIdentity, now: Date())
    }

    func refusal(
        forHostWithoutEvaluation host: String, transportName: String, appliesAnchorsAndIdentity: Bool = false,
        now: Date
    ) -> NetworkError? {
        let rules = policy.rules(forHost: host)
        guard !rules.isEmpty else { return nil }
        var needs: [String] = []
        if let pinSet = rules.pinSet, pinSet.mode == .enforce, !pinSet.isExpired(at: now) {
            needs.append("pins")
        }
        if !appliesAnchorsAndIdentity {
            if rules.anchors != nil { needs.append("trust anchors") }
            if rules.clientIdentity != nil { needs.append("a client certificate") }
        }
        if !needs.isEmpty {
            let alternative =
                appliesAnchorsAndIdentity
                ? "URLSession on Apple platforms and the AsyncHTTPClient transport of Formwork's examples "
                    + "enforce pins"
                : "URLSession on Apple platforms and the AsyncHTTPClient transport of Formwork's examples "
                    + "enforce all of them"
            return NetworkError(
                .serverTrust,
                failureReason:
                    "The request to \(rules.host) was not sent: its trust policy has "
                    + needs.joined(separator: " and ")
                    + ", which \(transportName) cannot enforce (it gives no access to the certificates a "
                    + "server presents). \(alternative).",
                details: .init(reason: .trustNotEnforceable, host: rules.host))
        }
        if let pinSet = rules.pinSet {
            report(pinSet.isExpired(at: now) ? .pinSetExpired : .notEvaluated, rules.host, pinSet, [])
        }
        return nil
    }

    private func report(
        _ outcome: TrustReport.Outcome, _ host: String, _ pinSet: PinSet, _ presented: [String]
    ) {
        guard policy.reportHandler != nil || monitorReport != nil else { return }
        let report = TrustReport(
            outcome: outcome, host: host, expectedPins: pinSet.pins.sorted(), presentedPins: presented,
            expires: pinSet.expires)
        policy.reportHandler?(report)
        monitorReport?(report)
    }
}
