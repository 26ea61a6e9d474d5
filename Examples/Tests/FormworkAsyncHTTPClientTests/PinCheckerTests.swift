import FormworkTestSupport
import Foundation
import Testing

@testable import FormworkAsyncHTTPClient

/// The part of a presented chain that counts for pins: only certificates the signatures link to
/// the leaf of the checked connection (chains made at test time; no server).
@Suite("AsyncHTTPClient transport: the chain linked to a leaf")
struct PinCheckerTests {
    @Test("Each certificate counts when it signed the one before, and an anchor that signed the last")
    func linked() async throws {
        let chains = try await TestChains.make()
        let (leaf, intermediate, root) = (chains.leaf.der, chains.intermediate.der, chains.root.der)
        #expect(
            PinChecker.linkedChain(leaf: leaf, presented: [leaf, intermediate], anchors: []) == [
                leaf, intermediate,
            ])
        #expect(
            PinChecker.linkedChain(leaf: leaf, presented: [leaf, intermediate], anchors: [root])
                == [leaf, intermediate, root])
        #expect(
            PinChecker.linkedChain(leaf: leaf, presented: [leaf, intermediate, root], anchors: [root])
                == [leaf, intermediate, root])
    }

    @Test("A certificate that did not sign the one before ends the chain, whatever its key")
    func forged() async throws {
        let chains = try await TestChains.make()
        let leaf = chains.leaf.der
        // A foreign root (as a made-up CA with a pinned key would be) after the leaf: not linked.
        #expect(
            PinChecker.linkedChain(
                leaf: leaf, presented: [leaf, chains.foreignRoot.der, chains.root.der], anchors: [])
                == [leaf])
        // The intermediate after the root it did not sign: only the part that links counts.
        #expect(
            PinChecker.linkedChain(
                leaf: leaf, presented: [leaf, chains.intermediate.der, chains.foreignRoot.der], anchors: [])
                == [leaf, chains.intermediate.der])
        // A chain read for another leaf lends nothing to this one.
        #expect(
            PinChecker.linkedChain(
                leaf: leaf, presented: [chains.rotatedLeaf.der, chains.intermediate.der],
                anchors: [chains.root.der])
                == [leaf])
        #expect(!PinChecker.signs(chains.root.der, leaf))
        #expect(PinChecker.signs(chains.intermediate.der, leaf))
        #expect(!PinChecker.signs(Data("not a certificate".utf8), leaf))
    }
}
