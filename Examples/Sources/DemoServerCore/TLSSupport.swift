import NIOCore

/// TLS for the demo server's HTTPS listeners, given to ``DemoServerProgram/run(name:tls:)`` by
/// the executable that links a TLS library (`DemoServerTLS`, on swift-nio-ssl). The shared server
/// code names no TLS library, so `DemoServer`, and the demo that builds it, compile without one.
public struct TLSSupport: Sendable {
    /// Adds TLS to the pipeline of one accepted connection, in front of the HTTP handlers.
    public typealias ConnectionSetup = @Sendable (ChannelPipeline.SynchronousOperations) throws -> Void

    /// Loads a certificate chain and a private key (PEM files) for one listener, and the CAs its
    /// clients' certificates must be signed by (a PEM file; `nil`: no client certificate asked).
    public typealias Load =
        @Sendable (_ certificatePath: String, _ keyPath: String, _ clientCertificateAuthorityPath: String?)
        throws -> ConnectionSetup

    /// Loads a listener's files.
    private let load: Load

    /// TLS that `load` provides.
    /// - Parameter load: Reads the certificate chain, private key and client CAs at the given
    ///   paths, and returns the setup of each connection of the listener that uses them; throws if
    ///   they cannot be used.
    public init(load: @escaping Load) {
        self.load = load
    }

    /// The connection setup for `listener`'s certificate and key.
    func connectionSetup(for listener: Options.TLSListener) throws(Options.UsageError) -> ConnectionSetup {
        guard let certificatePath = listener.certificatePath, let keyPath = listener.keyPath else {
            throw Options.UsageError(description: "a TLS listener needs --tls-cert and --tls-key")
        }
        do {
            return try load(certificatePath, keyPath, listener.clientCertificateAuthorityPath)
        } catch {
            throw Options.UsageError(
                description:
                    "cannot use the TLS certificate \(certificatePath) with the key \(keyPath): \(error)")
        }
    }
}
