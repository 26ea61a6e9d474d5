import FormworkTestSupport
import Foundation
import Testing

@testable import Formwork

/// Chains made once for the trust suites (openssl runs a dozen times).
enum SharedChains {
    static let made = Task { try await TestChains.make() }
}

/// Two distinct valid pins that match nothing.
let unrelatedPins = [Data(repeating: 1, count: 32), Data(repeating: 2, count: 32)].map {
    $0.base64EncodedString()
}

@Suite("Trust: reading certificates, pins and host patterns")
struct TrustPolicyTests {
    @Test(
        "the pin of a certificate is openssl's SHA-256 of its SubjectPublicKeyInfo, for every certificate of the chain"
    )
    func pinsMatchOpenSSL() async throws {
        let chains = try await SharedChains.made.value
        for certificate in [chains.root, chains.intermediate, chains.leaf, chains.rotatedLeaf, chains.client]
        {
            #expect(try PinSet.pin(ofCertificate: certificate.der) == certificate.pin)
            #expect(try PinSet.pin(ofCertificate: Data(contentsOf: certificate.pem)) == certificate.pin)
        }
        #expect(chains.leaf.pin != chains.rotatedLeaf.pin)
    }

    @Test(
        "data that is not a certificate gives a clear error, never a crash",
        arguments: [
            Data(), Data([0x30]), Data([0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xFF]),
            Data([0x30, 0x03, 0x02, 0x01, 0x00]),
            Data("hello".utf8), Data(repeating: 0x30, count: 64),
        ])
    func unreadableCertificates(_ data: Data) {
        #expect(CertificateReader.subjectPublicKeyInfo(of: data) == nil)
        #expect(throws: NetworkError.self) { try PinSet.pin(ofCertificate: data) }
    }

    @Test("every truncation of a real certificate is refused")
    func truncatedCertificates() async throws {
        let der = try await SharedChains.made.value.leaf.der
        for length in stride(from: 0, to: der.count, by: 7) {
            #expect(CertificateReader.subjectPublicKeyInfo(of: der.prefix(length)) == nil)
        }
    }

    @Test("a pin set of one pin is refused at configuration with a message that says why")
    func backupPinRequired() throws {
        let error = #expect(throws: NetworkError.self) {
            try PinSet(hosts: ["api.example.com"], pins: [unrelatedPins[0]])
        }
        #expect(error?.kind == .invalidTrustPolicy)
        #expect(error?.reason == .missingBackupPin)
        #expect(error?.failureReason.contains("backup") == true)
        #expect(error?.failureReason.contains("api.example.com") == true)
        // The same pin twice is still one pin.
        #expect(throws: NetworkError.self) {
            try PinSet(hosts: ["api.example.com"], pins: [unrelatedPins[0], unrelatedPins[0]])
        }
        // Said in code: accepted.
        let single = try PinSet(hosts: ["api.example.com"], pins: [unrelatedPins[0]], allowsSinglePin: true)
        #expect(single.pins == [unrelatedPins[0]])
    }

    @Test("a pin that is not a base64 SHA-256 hash is refused; the sha256/ prefix is accepted")
    func pinFormat() throws {
        for bad in ["", "abc", Data(repeating: 1, count: 20).base64EncodedString(), "not base64!"] {
            let error = #expect(throws: NetworkError.self) {
                try PinSet(hosts: ["a.example"], pins: [bad, unrelatedPins[0]])
            }
            #expect(error?.reason == .invalidPin)
        }
        let set = try PinSet(hosts: ["a.example"], pins: ["sha256/" + unrelatedPins[0], unrelatedPins[1]])
        #expect(set.pins == Set(unrelatedPins))
    }

    @Test(
        "host patterns that cannot be read are refused",
        arguments: [
            "", "*", "**", "*.", "a..b", "exa mple.com", "a.*.example.com", "*example.com", "ex/ample.com",
        ])
    func badHostPatterns(_ pattern: String) {
        let error = #expect(throws: NetworkError.self) { try PinSet(hosts: [pattern], pins: unrelatedPins) }
        #expect(error?.reason == .invalidHostPattern)
    }

    @Test("no host at all is refused")
    func noHosts() {
        #expect(throws: NetworkError.self) { try PinSet(hosts: [], pins: unrelatedPins) }
    }

    @Test("a host pattern matches its host only; look-alikes never match")
    func hostMatching() throws {
        let exact = try HostPattern("API.Example.com.")
        #expect(exact.matches("api.example.com"))
        #expect(exact.matches("API.EXAMPLE.COM"))
        #expect(!exact.matches("example.com"))
        #expect(!exact.matches("x.api.example.com"))

        let oneLabel = try HostPattern("*.example.com")
        #expect(oneLabel.matches("api.example.com"))
        #expect(!oneLabel.matches("example.com"))
        #expect(!oneLabel.matches("a.b.example.com"))
        #expect(!oneLabel.matches("evilexample.com"))
        #expect(!oneLabel.matches("api.example.com.evil.net"))
        #expect(!oneLabel.matches(".example.com"))

        let domain = try HostPattern("**.example.com")
        #expect(domain.matches("example.com"))
        #expect(domain.matches("api.example.com"))
        #expect(domain.matches("a.b.example.com"))
        #expect(!domain.matches("evilexample.com"))
        #expect(!domain.matches("example.com.evil.net"))
        #expect(!domain.matches("example.co"))

        #expect(try HostPattern("127.0.0.1").matches("127.0.0.1"))
        #expect(try HostPattern("::1").matches("[::1]"))
    }

    @Test("the most specific rule covers a host")
    func mostSpecificRule() throws {
        let domain = try PinSet(hosts: ["**.example.com"], pins: [unrelatedPins[0]], allowsSinglePin: true)
        let wildcard = try PinSet(hosts: ["*.example.com"], pins: [unrelatedPins[1]], allowsSinglePin: true)
        let exact = try PinSet(hosts: ["api.example.com"], pins: unrelatedPins)
        let policy = TrustPolicy(pinSets: [domain, wildcard, exact])
        #expect(policy.rules(forHost: "api.example.com").pinSet == exact)
        #expect(policy.rules(forHost: "cdn.example.com").pinSet == wildcard)
        #expect(policy.rules(forHost: "a.cdn.example.com").pinSet == domain)
        #expect(policy.rules(forHost: "example.org").isEmpty)
    }

    @Test("anchors and client identities are for their hosts only")
    func anchorsForListedHosts() async throws {
        let chains = try await SharedChains.made.value
        let anchors = try TrustAnchors(
            hosts: ["internal.example.com"], pem: String(contentsOf: chains.root.pem, encoding: .utf8))
        #expect(anchors.certificates == [chains.root.der])
        let identity = try ClientIdentity(
            hosts: ["mtls.example.com"], pkcs12: chains.clientPKCS12, password: "x")
        let policy = TrustPolicy(anchors: [anchors], clientIdentities: [identity])
        #expect(policy.rules(forHost: "internal.example.com").anchors == anchors)
        #expect(policy.rules(forHost: "internal.example.com").clientIdentity == nil)
        #expect(policy.rules(forHost: "mtls.example.com").clientIdentity == identity)
        #expect(policy.rules(forHost: "other.example.com").isEmpty)
        #expect(throws: NetworkError.self) { try TrustAnchors(hosts: ["a.example"], certificates: []) }
        #expect(throws: NetworkError.self) {
            try TrustAnchors(hosts: ["a.example"], certificates: [Data("x".utf8)])
        }
        #expect(throws: NetworkError.self) {
            try ClientIdentity(hosts: ["a.example"], pkcs12: Data(), password: "")
        }
    }
}
