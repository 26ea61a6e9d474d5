import AsyncHTTPClient
// NIOSSL's own BoringSSL, which the transport links already through NIOSSL: NIOSSL has no public
// call that checks a certificate's signature (see `PinChecker.signs`).
import CNIOBoringSSL
import Formwork
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL

/// The hosts of a ``PinSet`` the transport has sent to, each with an `HTTPClient` of its own
/// whose connections are checked against the pins before any request goes out on them.
///
/// AsyncHTTPClient 1.37 hands no certificate verification callback to the TLS handler it makes;
/// what it offers is a connection initializer (`http1_1ConnectionDebugInitializer`,
/// `http2ConnectionDebugInitializer`) that runs once per new connection, after the TLS handshake
/// (the platform's evaluation: dates, host name, roots or the host's anchors) and before the
/// connection takes any request. A failed initializer fails the connection, and AsyncHTTPClient
/// fails the requests waiting for it with that error. Since the initializer belongs to a client,
/// a host with pins gets a client of its own (made from
/// ``AsyncHTTPClientTransport/recommendedConfiguration`` on the transport client's event loop
/// group, so that its requests keep their own pool of connections); hosts without pins use the
/// transport's client, untouched.
///
/// The initializer sees the leaf certificate only (`NIOSSLHandler.peerCertificate`). When the
/// leaf has a pinned key, that settles it. Otherwise the checker reads the rest of the chain once
/// per leaf: it opens a second TLS connection to the same address, keeps the certificates the
/// server presents, and closes it before the handshake ends (no request goes out on it). A
/// certificate of that chain counts only when the signatures link it to the leaf of the checked
/// connection (the leaf identical, each certificate signed by the next), so a chain made up by
/// someone on the path cannot lend the leaf a pinned key; the host's anchors count as the last
/// link when the server does not send its root. The verdict is kept per leaf: later connections
/// that present the same leaf cost one lookup.
final class PinnedHosts: Sendable {
    /// Which client a host uses: its name, pins and anchors.
    private struct Key: Hashable {
        let host: String
        let pinSet: PinSet
        let anchors: TrustAnchors?
    }

    private let group: any EventLoopGroup
    private let hosts = NIOLockedValueBox<[Key: PinnedHost]>([:])

    init(group: any EventLoopGroup) {
        self.group = group
    }

    /// The pinned host for `rules` (made on first use).
    func host(for rules: TrustRules, pinSet: PinSet) -> PinnedHost {
        let key = Key(host: rules.host, pinSet: pinSet, anchors: rules.anchors)
        return hosts.withLockedValue { hosts in
            if let host = hosts[key] { return host }
            let host = PinnedHost(host: rules.host, pinSet: pinSet, anchors: rules.anchors, group: group)
            hosts[key] = host
            return host
        }
    }

    deinit {
        for host in hosts.withLockedValue({ $0.values }) {
            host.client.shutdown { _ in }
        }
    }
}

/// One pinned host: its client, and the checker its connections go through.
final class PinnedHost: Sendable {
    /// The host, in lower case.
    let host: String
    /// Its pins.
    let pinSet: PinSet
    /// The client its requests go out on.
    let client: HTTPClient
    /// Checks each new connection.
    let checker: PinChecker

    init(host: String, pinSet: PinSet, anchors: TrustAnchors?, group: any EventLoopGroup) {
        self.host = host
        self.pinSet = pinSet
        let checker = PinChecker(host: host, pinSet: pinSet, anchors: anchors?.certificates ?? [])
        var configuration = AsyncHTTPClientTransport.recommendedConfiguration
        configuration.http1_1ConnectionDebugInitializer = { checker.check($0) }
        configuration.http2ConnectionDebugInitializer = { checker.check($0) }
        self.checker = checker
        self.client = HTTPClient(eventLoopGroup: group, configuration: configuration)
    }
}

/// Checks the chain of a new connection against a host's pins (see ``PinnedHosts``).
final class PinChecker: Sendable {
    private struct State {
        /// Leaf (DER) → the chain linked to it by signatures, leaf first.
        var chains: [Data: [Data]] = [:]
        /// The chain of the latest connection that passed.
        var latest: [Data] = []
    }

    let host: String
    let pinSet: PinSet
    /// The host's anchors (DER), the last link when the server does not send its root.
    let anchors: [Data]
    private let state = NIOLockedValueBox(State())
    /// The TLS context of the connections that read a chain. Its verification mode must not be
    /// `.none` (NIOSSL would then never call the custom callback that keeps the chain); the
    /// callback replaces its evaluation: the chain is judged here.
    private let probeContext: NIOSSLContext?

    init(host: String, pinSet: PinSet, anchors: [Data]) {
        self.host = host
        self.pinSet = pinSet
        self.anchors = anchors
        self.probeContext = try? NIOSSLContext(configuration: TLSConfiguration.makeClientConfiguration())
    }

    /// The chain of the latest connection that passed, leaf first (for report-only sets, whose
    /// connections always pass: each request reports on it).
    var latestChain: [Data] { state.withLockedValue { $0.latest } }

    /// The connection initializer: succeeds when the chain has a pinned key (or the set only
    /// reports, or has expired), fails with the ``NetworkError/Kind/serverTrust`` error otherwise.
    func check(_ channel: any Channel) -> EventLoopFuture<Void> {
        channel.eventLoop.flatSubmit { () -> EventLoopFuture<Void> in
            let leaf: Data
            do {
                let handler = try channel.pipeline.syncOperations.handler(type: NIOSSLHandler.self)
                guard let certificate = handler.peerCertificate else {
                    throw URLError(.secureConnectionFailed)
                }
                leaf = Data(try certificate.toDERBytes())
            } catch {
                return channel.eventLoop.makeFailedFuture(self.failure(chain: []))
            }
            if let chain = self.state.withLockedValue({ $0.chains[leaf] }) {
                return self.verdict(chain, on: channel.eventLoop)
            }
            if let pin = try? PinSet.pin(ofCertificate: leaf), self.pinSet.pins.contains(pin) {
                return self.verdict([leaf], remember: leaf, on: channel.eventLoop)
            }
            guard let address = channel.remoteAddress else {
                return self.verdict([leaf], on: channel.eventLoop)
            }
            return self.presentedChain(at: address, on: channel.eventLoop).flatMap { presented in
                self.verdict(
                    Self.linkedChain(leaf: leaf, presented: presented, anchors: self.anchors),
                    remember: leaf, on: channel.eventLoop)
            }
        }
    }

    /// Succeeds or fails on `chain`, and remembers it for `leaf`.
    private func verdict(_ chain: [Data], remember leaf: Data? = nil, on loop: any EventLoop)
        -> EventLoopFuture<Void>
    {
        let evaluator = TrustEvaluator(policy: TrustPolicy(pinSets: [pinSet]))
        if let error = evaluator.evaluate(host: host, certificateChain: chain) {
            return loop.makeFailedFuture(error)
        }
        state.withLockedValue { state in
            if let leaf { state.chains[leaf] = chain }
            state.latest = chain
        }
        return loop.makeSucceededVoidFuture()
    }

    /// The error for a connection whose chain could not be read.
    private func failure(chain: [Data]) -> any Error {
        TrustEvaluator(policy: TrustPolicy(pinSets: [pinSet])).evaluate(host: host, certificateChain: chain)
            ?? URLError(.secureConnectionFailed)
    }

    /// The certificates the server at `address` presents (DER, as sent), read on a connection of
    /// its own that ends before its handshake does; empty when none could be read.
    private func presentedChain(at address: SocketAddress, on loop: any EventLoop) -> EventLoopFuture<[Data]>
    {
        guard let probeContext else { return loop.makeSucceededFuture([]) }
        let chain = loop.makePromise(of: [Data].self)
        let serverName = Self.serverName(for: host)
        let bootstrap = ClientBootstrap(group: loop)
            .connectTimeout(.seconds(10))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handler = try NIOSSLClientHandler(
                        context: probeContext, serverHostname: serverName,
                        customVerificationCallback: { certificates, verdict in
                            chain.succeed(certificates.compactMap { try? Data($0.toDERBytes()) })
                            // Nothing more is needed from this connection.
                            verdict.succeed(.failed)
                        })
                    try channel.pipeline.syncOperations.addHandler(handler)
                }
            }
        bootstrap.connect(to: address).whenComplete { result in
            switch result {
            case .success(let channel):
                // Whichever comes first: the chain, or the connection's end without one.
                channel.closeFuture.whenComplete { _ in chain.succeed([]) }
                chain.futureResult.whenComplete { _ in channel.close(promise: nil) }
            case .failure:
                chain.succeed([])
            }
        }
        // A server that never answers the handshake does not hold the request forever.
        let timeout = loop.scheduleTask(in: .seconds(10)) { chain.succeed([]) }
        chain.futureResult.whenComplete { _ in timeout.cancel() }
        return chain.futureResult
    }

    /// The name sent in the probe's TLS handshake: none for an IP address, as AsyncHTTPClient does.
    private static func serverName(for host: String) -> String? {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return (try? SocketAddress(ipAddress: bare, port: 0)) == nil ? host : nil
    }

    /// `leaf`, then each certificate of `presented` (after its leaf) that signed the one before,
    /// then an anchor that signed the last, if any: the part of the chain the leaf of the checked
    /// connection is linked to. Just `leaf` when `presented` starts with another leaf.
    static func linkedChain(leaf: Data, presented: [Data], anchors: [Data]) -> [Data] {
        guard presented.first == leaf else { return [leaf] }
        var chain = [leaf]
        for next in presented.dropFirst() {
            guard let last = chain.last, signs(next, last) else { break }
            chain.append(next)
        }
        if let last = chain.last,
            let anchor = anchors.first(where: { !chain.contains($0) && signs($0, last) })
        {
            chain.append(anchor)
        }
        return chain
    }

    /// Whether the key of `issuer` made the signature of `certificate` (both DER), as BoringSSL's
    /// `X509_verify` checks it.
    static func signs(_ issuer: Data, _ certificate: Data) -> Bool {
        guard let child = parse(certificate) else { return false }
        defer { X509_free(child) }
        guard let parent = parse(issuer) else { return false }
        defer { X509_free(parent) }
        guard let key = X509_get_pubkey(parent) else { return false }
        defer { EVP_PKEY_free(key) }
        return X509_verify(child, key) == 1
    }

    /// A BoringSSL certificate read from DER (the whole of `der`), or `nil`.
    private static func parse(_ der: Data) -> OpaquePointer? {
        let bytes = [UInt8](der)
        return bytes.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor = buffer.baseAddress
            guard let certificate = d2i_X509(nil, &cursor, buffer.count) else { return nil }
            guard cursor == buffer.baseAddress.map({ $0 + buffer.count }) else {
                X509_free(certificate)
                return nil
            }
            return certificate
        }
    }
}
