import FormworkTestSupport
import Foundation
import Testing

@Suite("Test support: MD5")
struct MD5Tests {
    @Test(
        "RFC 1321 test vectors",
        arguments: [
            ("", "d41d8cd98f00b204e9800998ecf8427e"), ("a", "0cc175b9c0f1b6a831c399e269772661"),
            ("abc", "900150983cd24fb0d6963f7d28e17f72"),
            ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
            (String(repeating: "1234567890", count: 8), "57edf4a22be3c955ac49da2e2107b67a"),
        ])
    func vectors(text: String, digest: String) {
        #expect(MD5.hex(Data(text.utf8)) == digest)
    }
}
