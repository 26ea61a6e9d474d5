import Foundation

/// A host a rule of a ``TrustPolicy`` applies to, read from its text:
/// - `api.example.com`: that host only;
/// - `*.example.com`: one label before `example.com` (`api.example.com`, not `example.com` nor
///   `a.b.example.com`);
/// - `**.example.com`: `example.com` and every host below it, at any depth.
///
/// Hosts compare without regard to letter case or a final dot. A look-alike never matches:
/// `**.example.com` does not match `evilexample.com` nor `example.com.evil.net`.
struct HostPattern: Hashable, Sendable, CustomStringConvertible {
    enum Scope: Int, Hashable, Sendable {
        /// `**.domain`: the domain and every host below it.
        case domainAndSubdomains = 0
        /// `*.domain`: one label before the domain.
        case oneLabel = 1
        /// The host itself.
        case exact = 2
    }

    let scope: Scope
    /// The host or domain, in lower case, without a final dot.
    let name: String

    /// The pattern as written.
    var description: String {
        switch scope {
        case .exact: return name
        case .oneLabel: return "*." + name
        case .domainAndSubdomains: return "**." + name
        }
    }

    /// Reads a pattern.
    /// - Parameter text: `host`, `*.domain` or `**.domain`.
    /// - Throws: A ``NetworkError/Kind/invalidTrustPolicy`` error
    ///   (``NetworkError/Reason/invalidHostPattern``) for an empty or malformed pattern.
    init(_ text: String) throws(NetworkError) {
        var rest = Self.normalized(text)
        var scope = Scope.exact
        if rest.hasPrefix("**.") {
            scope = .domainAndSubdomains
            rest.removeFirst(3)
        } else if rest.hasPrefix("*.") {
            scope = .oneLabel
            rest.removeFirst(2)
        }
        let labels = rest.split(separator: ".", omittingEmptySubsequences: false)
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789-_")
        let isIPv6 =
            scope == .exact && rest.contains(":")
            && rest.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
        guard !rest.isEmpty,
            isIPv6 || labels.allSatisfy({ !$0.isEmpty && $0.allSatisfy(allowed.contains) })
        else {
            throw NetworkError(
                .invalidTrustPolicy,
                failureReason:
                    "The host pattern \"\(text)\" cannot be read: write a host (api.example.com), one label "
                    + "of a domain (*.example.com) or a domain with its subdomains (**.example.com).",
                details: .init(reason: .invalidHostPattern, host: text))
        }
        self.scope = scope
        self.name = rest
    }

    /// Whether `host` (as it appears in a URL) is one this pattern covers.
    func matches(_ host: String) -> Bool {
        let host = Self.normalized(host)
        switch scope {
        case .exact:
            return host == name
        case .oneLabel:
            guard host.hasSuffix("." + name) else { return false }
            let label = host.dropLast(name.count + 1)
            return !label.isEmpty && !label.contains(".")
        case .domainAndSubdomains:
            return host == name || host.hasSuffix("." + name)
        }
    }

    /// How specific the pattern is: a host beats a one-label wildcard, which beats a domain; a
    /// longer name beats a shorter one of the same scope.
    var specificity: (Int, Int) { (scope.rawValue, name.count) }

    /// `host` in lower case, without brackets (an IPv6 literal) or a final dot.
    static func normalized(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.hasSuffix(".") { host.removeLast() }
        return host
    }
}

/// The hosts of one rule of a ``TrustPolicy``.
struct HostPatterns: Hashable, Sendable {
    let patterns: [HostPattern]

    init(_ texts: [String]) throws(NetworkError) {
        guard !texts.isEmpty else {
            throw NetworkError(
                .invalidTrustPolicy,
                failureReason: "A trust rule names no host: give at least one host pattern.",
                details: .init(reason: .invalidHostPattern))
        }
        var patterns: [HostPattern] = []
        for text in texts { patterns.append(try HostPattern(text)) }
        self.patterns = patterns
    }

    /// The most specific pattern that matches `host`, if any.
    func bestMatch(for host: String) -> HostPattern? {
        patterns.filter { $0.matches(host) }.max { $0.specificity < $1.specificity }
    }
}
