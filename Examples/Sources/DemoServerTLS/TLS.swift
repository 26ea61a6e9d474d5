import DemoServerCore
import NIOCore
import NIOSSL

extension TLSSupport {
    /// TLS on swift-nio-ssl: one server context per listener, a `NIOSSLServerHandler` per connection.
    static let nioSSL = TLSSupport { certificatePath, keyPath in
        let chain = try NIOSSLCertificate.fromPEMFile(certificatePath).map {
            NIOSSLCertificateSource.certificate($0)
        }
        let key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain, privateKey: .privateKey(key))
        let context = try NIOSSLContext(configuration: configuration)
        return { pipeline in try pipeline.addHandler(NIOSSLServerHandler(context: context)) }
    }
}
