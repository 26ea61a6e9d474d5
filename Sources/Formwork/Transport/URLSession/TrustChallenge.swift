#if canImport(Security)
    import Foundation
    import Security

    /// How the built-in transport answers the TLS challenges of a host covered by a session's
    /// ``TrustPolicy``, on Apple platforms (corelibs on Linux offers neither challenge; there the
    /// transport refuses such a request before sending it).
    ///
    /// - Server trust: the system evaluation first (`SecTrustEvaluateWithError`; against the host's
    ///   ``TrustAnchors`` only, when it has some), then the pins, through ``TrustEvaluator`` (the
    ///   logic shared with every transport and tested on Linux), on the chain the system built.
    /// - Client certificate: the host's ``ClientIdentity``, imported from its PKCS #12 archive.
    ///
    /// Only this narrow seam is Apple-only; it cannot be compiled on Linux.
    enum TrustChallenge {
        /// An answer: the disposition and credential for URLSession, and the error the exchange
        /// ends with when the answer refuses the connection.
        struct Verdict {
            var disposition: URLSession.AuthChallengeDisposition
            var credential: URLCredential?
            var failure: NetworkError?
        }

        /// The answer to `challenge`, or `nil` when the host has no rule for it (the transport's
        /// usual answer then applies).
        static func answer(
            _ challenge: URLAuthenticationChallenge, rules: TrustRules, evaluator: TrustEvaluator
        )
            -> Verdict?
        {
            let space = challenge.protectionSpace
            switch space.authenticationMethod {
            case NSURLAuthenticationMethodServerTrust:
                guard rules.pinSet != nil || rules.anchors != nil, let trust = space.serverTrust else {
                    return nil
                }
                return serverTrust(trust, host: space.host, rules: rules, evaluator: evaluator)
            case NSURLAuthenticationMethodClientCertificate:
                guard let identity = rules.clientIdentity else { return nil }
                return clientCertificate(identity, host: rules.host)
            default:
                return nil
            }
        }

        private static func serverTrust(
            _ trust: SecTrust, host: String, rules: TrustRules, evaluator: TrustEvaluator
        )
            -> Verdict
        {
            if let anchors = rules.anchors {
                let certificates = anchors.certificates.compactMap {
                    SecCertificateCreateWithData(nil, $0 as CFData)
                }
                SecTrustSetAnchorCertificates(trust, certificates as CFArray)
                SecTrustSetAnchorCertificatesOnly(trust, true)
            }
            var error: CFError?
            guard SecTrustEvaluateWithError(trust, &error) else {
                let failure = NetworkError(
                    .transport,
                    failureReason: "The certificate of \(host) is not trusted"
                        + (rules.anchors == nil ? "" : " by its trust anchors") + ": "
                        + (error.map { ($0 as Error).localizedDescription } ?? "evaluation failed") + ".",
                    underlyingError: URLError(.serverCertificateUntrusted))
                return Verdict(disposition: .cancelAuthenticationChallenge, credential: nil, failure: failure)
            }
            let chain = (SecTrustCopyCertificateChain(trust) as? [SecCertificate]) ?? []
            let der = chain.map { SecCertificateCopyData($0) as Data }
            if let failure = evaluator.evaluate(host: host, certificateChain: der) {
                return Verdict(disposition: .cancelAuthenticationChallenge, credential: nil, failure: failure)
            }
            return Verdict(disposition: .useCredential, credential: URLCredential(trust: trust), failure: nil)
        }

        private static func clientCertificate(_ identity: ClientIdentity, host: String) -> Verdict {
            var items: CFArray?
            let options = [kSecImportExportPassphrase as String: identity.password] as CFDictionary
            let status = SecPKCS12Import(identity.pkcs12 as CFData, options, &items)
            guard status == errSecSuccess, let first = (items as? [[String: Any]])?.first,
                let secIdentity = first[kSecImportItemIdentity as String].map({ $0 as! SecIdentity })
            else {
                let failure = NetworkError(
                    .invalidTrustPolicy,
                    failureReason:
                        "The client identity for \(host) could not be read from its PKCS #12 archive (status \(status)): "
                        + "check the archive and its password.",
                    details: .init(reason: .invalidCertificate, host: host))
                return Verdict(disposition: .cancelAuthenticationChallenge, credential: nil, failure: failure)
            }
            // The chain beside the identity's own certificate (the first element), if any.
            let chain = (first[kSecImportItemCertChain as String] as? [SecCertificate]).map {
                Array($0.dropFirst())
            }
            let credential = URLCredential(
                identity: secIdentity, certificates: chain, persistence: .forSession)
            return Verdict(disposition: .useCredential, credential: credential, failure: nil)
        }
    }
#endif
