import Foundation

/// Reads what pinning needs from an X.509 certificate in DER: its SubjectPublicKeyInfo, and the
/// SHA-256 hash of it in base64 (a pin).
///
/// A certificate is `SEQUENCE { tbsCertificate, signatureAlgorithm, signature }`, and
/// `tbsCertificate` is `SEQUENCE { [0] version OPTIONAL, serialNumber, signature, issuer,
/// validity, subject, subjectPublicKeyInfo, ... }` (RFC 5280, 4.1). Only the tags and lengths on
/// the way to the seventh field are read; nothing is decoded, so a malformed certificate gives
/// `nil`, never a crash.
enum CertificateReader {
    /// The DER bytes of the certificate's SubjectPublicKeyInfo (tag and length included), or `nil`
    /// when `certificate` is not a DER certificate.
    static func subjectPublicKeyInfo(of certificate: Data) -> Data? {
        let bytes = [UInt8](certificate)
        guard let outer = element(in: bytes, at: 0), outer.tag == 0x30, outer.end == bytes.count,
            let tbs = element(in: bytes, at: outer.contentStart), tbs.tag == 0x30, tbs.end <= outer.end
        else { return nil }
        var offset = tbs.contentStart
        guard var field = element(in: bytes, at: offset), field.end <= tbs.end else { return nil }
        // The explicit version ([0], constructed) comes first when present.
        if field.tag == 0xA0 {
            offset = field.end
            guard let next = element(in: bytes, at: offset), next.end <= tbs.end else { return nil }
            field = next
        }
        // serialNumber, signature, issuer, validity, subject, then subjectPublicKeyInfo.
        let expectedTags: [UInt8] = [0x02, 0x30, 0x30, 0x30, 0x30]
        for tag in expectedTags {
            guard field.tag == tag else { return nil }
            offset = field.end
            guard let next = element(in: bytes, at: offset), next.end <= tbs.end else { return nil }
            field = next
        }
        guard field.tag == 0x30 else { return nil }
        return Data(bytes[field.start..<field.end])
    }

    /// The pin of a certificate: the base64 SHA-256 hash of its SubjectPublicKeyInfo, or `nil`
    /// when `certificate` is not a DER certificate.
    static func pin(of certificate: Data) -> String? {
        subjectPublicKeyInfo(of: certificate).map { Data(SHA256.digest([UInt8]($0))).base64EncodedString() }
    }

    /// The DER certificates in PEM text (every `BEGIN CERTIFICATE` block, in order).
    static func certificates(inPEM text: String) -> [Data] {
        let begin = "-----BEGIN CERTIFICATE-----"
        let end = "-----END CERTIFICATE-----"
        var result: [Data] = []
        var rest = Substring(text)
        while let start = rest.range(of: begin), let stop = rest[start.upperBound...].range(of: end) {
            let body = rest[start.upperBound..<stop.lowerBound]
            if let der = Data(base64Encoded: String(body), options: .ignoreUnknownCharacters) {
                result.append(der)
            }
            rest = rest[stop.upperBound...]
        }
        return result
    }

    /// One DER element: its tag, where it starts, where its content starts, and where it ends.
    private struct Element {
        let tag: UInt8
        let start: Int
        let contentStart: Int
        let end: Int
    }

    /// The element at `offset`, or `nil` when its header is malformed or it runs past the bytes.
    private static func element(in bytes: [UInt8], at offset: Int) -> Element? {
        guard offset >= 0, offset + 2 <= bytes.count else { return nil }
        let tag = bytes[offset]
        // Multi-byte tags do not occur on the way to the public key.
        guard tag & 0x1F != 0x1F else { return nil }
        let first = bytes[offset + 1]
        var length = 0
        var contentStart = offset + 2
        if first < 0x80 {
            length = Int(first)
        } else {
            let count = Int(first & 0x7F)
            // No indefinite lengths in DER; four length bytes are far more than a certificate needs.
            guard count >= 1, count <= 4, contentStart + count <= bytes.count else { return nil }
            for index in 0..<count {
                length = length << 8 | Int(bytes[contentStart + index])
            }
            contentStart += count
        }
        guard length <= bytes.count - contentStart else { return nil }
        return Element(tag: tag, start: offset, contentStart: contentStart, end: contentStart + length)
    }
}
