import Formwork
import FormworkTestSupport
import Foundation
import Testing

// TrustingServers.md (shared types and helpers: DocSnippetSupport.swift).

extension DocSnippetTests {
    @Suite("DocC article snippets: Trusting servers")
    struct TrustingServersTests {
        @Test("Trusting servers: the policy of the overview builds, and covers the hosts it names")
        func overview() async throws {
            let chains = try await TestChains.make()
            let currentKeyPin = chains.leaf.pin
            let backupKeyPin = chains.rotatedLeaf.pin
            let privateCAPEM = try String(contentsOf: chains.root.pem, encoding: .utf8)
            let p12 = chains.clientPKCS12
            let p12Password = chains.clientPassword

            let trust = TrustPolicy(
                pinSets: [
                    try PinSet(
                        hosts: ["api.example.com", "*.cdn.example.com"],
                        pins: [currentKeyPin, backupKeyPin],
                        expires: Date(timeIntervalSinceNow: 180 * 24 * 3600))
                ],
                anchors: [try TrustAnchors(hosts: ["internal.example.com"], pem: privateCAPEM)],
                clientIdentities: [
                    try ClientIdentity(hosts: ["mtls.example.com"], pkcs12: p12, password: p12Password)
                ])
            let api = Session { $0.trust = trust }
            let policy = try #require(api.configuration.trust)
            #expect(
                policy.rules(forHost: "images.cdn.example.com").pinSet?.pins == [currentKeyPin, backupKeyPin])
            #expect(policy.rules(forHost: "internal.example.com").anchors?.certificates == [chains.root.der])
            #expect(policy.rules(forHost: "mtls.example.com").clientIdentity != nil)
            #expect(policy.rules(forHost: "example.com").isEmpty)
            #expect(try PinSet.pin(ofCertificate: chains.leaf.der) == currentKeyPin)
        }
    }
}
