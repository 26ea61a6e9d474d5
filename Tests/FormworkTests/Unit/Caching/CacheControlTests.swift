import Foundation
import Testing

@testable import Formwork

@Suite("Cache-Control parsing")
struct CacheControlTests {
    @Test("Directives with and without arguments, any letter case, surrounding spaces")
    func directives() {
        let control = CacheControl(" Max-Age=60 , NO-cache,private ")
        #expect(control.seconds("max-age") == .seconds(60))
        #expect(control.has("no-cache"))
        #expect(control.has("private"))
        #expect(control.argument("private") == nil)
        #expect(!control.has("no-store"))
    }

    @Test("Quoted arguments keep their commas and resolve escapes")
    func quoted() {
        let control = CacheControl(#"private="Set-Cookie, X-A", community="a\"b", max-age=5"#)
        #expect(control.argument("private") == "Set-Cookie, X-A")
        #expect(control.argument("community") == #"a"b"#)
        #expect(control.seconds("max-age") == .seconds(5))
    }

    @Test("Repeated field lines are one list; the first occurrence of a directive counts")
    func repeated() {
        let control = CacheControl(["max-age=10", "max-age=99, must-revalidate"])
        #expect(control.seconds("max-age") == .seconds(10))
        #expect(control.has("must-revalidate"))
    }

    @Test("Garbage is tolerated: empty elements, stray equals, odd quotes")
    func garbage() {
        let control = CacheControl(#",,=5, "unterminated, max-age=3"#)
        #expect(!control.has(""))
        #expect(control.seconds("max-age") == nil)  // inside the unterminated quote
        let other = CacheControl("=,, no-store ,")
        #expect(other.has("no-store"))
    }

    @Test(
        "Delta-seconds: digits only, capped at 2^31",
        arguments: [
            ("0", CacheControl.DeltaSeconds.seconds(0)), ("120", .seconds(120)), ("+5", .invalid),
            ("-1", .invalid), ("1.5", .invalid), ("", .invalid),
            ("99999999999999999999999", .seconds(2_147_483_648)),
        ])
    func deltaSeconds(text: String, expected: CacheControl.DeltaSeconds) {
        #expect(CacheControl.DeltaSeconds(text) == expected)
    }

    @Test("CRC-32 and SHA-256 match their published check values")
    func checksums() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(SHA256.hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            SHA256.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        let long = String(repeating: "a", count: 1000)
        #expect(SHA256.hex(long) == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }
}
