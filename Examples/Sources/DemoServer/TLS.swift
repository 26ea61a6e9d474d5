import NIOSSL

/// The TLS side of the demo server: a server context from PEM files, for `Server.start(tls:)`.
enum TLS {
    /// Loads the certificate chain and private key of `listener` into a TLS server context.
    static func context(for listener: Options.TLSListener) throws -> NIOSSLContext {
        guard let certificatePath = listener.certificatePath, let keyPath = listener.keyPath else {
            throw Options.UsageError(description: "a TLS listener needs --tls-cert and --tls-key")
        }
        do {
            let chain = try NIOSSLCertificate.fromPEMFile(certificatePath).map {
                NIOSSLCertificateSource.certificate($0)
            }
            let key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
            let configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: chain, privateKey: .privateKey(key))
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw Options.UsageError(
                description:
                    "cannot use the TLS certificate \(certificatePath) with the key \(keyPath): \(error)")
        }
    }
}
