import DemoServerCore
import NIOCore
import NIOSSL

extension TLSSupport {
    /// TLS on swift-nio-ssl: one server context per listener, a `NIOSSLServerHandler` per connection.
    /// With client CAs, a client without a certificate they signed fails the handshake.
    static let nioSSL = TLSSupport { certificatePath, keyPath, clientCertificateAuthorityPath in
        let chain = try NIOSSLCertificate.fromPEMFile(certificatePath).map {
            NIOSSLCertificateSource.certificate($0)
        }
        let key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain, privateKey: .privateKey(key))
        if let clientCertificateAuthorityPath {
            configuration.certificateVerification = .noHostnameVerification
            configuration.trustRoots = .certificates(
                try NIOSSLCertificate.fromPEMFile(clientCertificateAuthorityPath))
        }
        let context = try NIOSSLContext(configuration: configuration)
        return { pipeline in try pipeline.addHandler(NIOSSLServerHandler(context: context)) }
    }
}
