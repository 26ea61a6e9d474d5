/// The HTTPS options, `DemoServerTLS` only: `--tls-port N` starts a listener (0: the OS chooses),
/// and the `--tls-cert` and `--tls-key` after it give its certificate chain and private key (PEM
/// files); `--tls-client-ca` (optional) makes the listener require a client certificate signed by
/// the CAs of that PEM file (mutual TLS). Repeat them for more listeners, e.g. one per certificate.
extension Options {
    /// One HTTPS listener.
    struct TLSListener: Sendable, Equatable {
        var port: Int
        var certificatePath: String?
        var keyPath: String?
        /// The CAs a client certificate must be signed by; `nil`: none is asked for.
        var clientCertificateAuthorityPath: String? = nil
    }

    /// Applies one of `--tls-port`, `--tls-cert`, `--tls-key`, `--tls-client-ca` and its value.
    mutating func parseTLSOption(_ option: String, value: String?) throws(UsageError) {
        guard let value, !value.isEmpty else { throw UsageError(description: "\(option) needs a value") }
        if option == "--tls-port" {
            guard let port = Int(value), (0...65535).contains(port) else {
                throw UsageError(description: "--tls-port needs a number from 0 to 65535")
            }
            tlsListeners.append(TLSListener(port: port))
            return
        }
        guard !tlsListeners.isEmpty else { throw UsageError(description: "\(option) must follow --tls-port") }
        if option == "--tls-client-ca" {
            tlsListeners[tlsListeners.count - 1].clientCertificateAuthorityPath = value
        } else if option == "--tls-cert" {
            tlsListeners[tlsListeners.count - 1].certificatePath = value
        } else {
            tlsListeners[tlsListeners.count - 1].keyPath = value
        }
    }

    /// Every listener needs both files.
    func checkTLSListeners() throws(UsageError) {
        for (index, listener) in tlsListeners.enumerated()
        where listener.certificatePath == nil || listener.keyPath == nil {
            throw UsageError(description: "TLS listener \(index + 1) needs both --tls-cert and --tls-key")
        }
    }
}

extension Options.TLSListener {
    init(port: Int) {
        self.init(port: port, certificatePath: nil, keyPath: nil)
    }
}
