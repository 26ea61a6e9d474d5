import Foundation

/// Turns a form's URL text into a URL the same way on every platform.
///
/// `URL(string:)` percent-encodes spaces, `|`, brackets, `^`, `"`, `<>`, `{}` and non-ASCII
/// characters on Linux and on Apple OS 17 and later, but returns `nil` for them on iOS 15-16 and
/// macOS 12-13. So Formwork reads the text itself (RFC 3986: scheme, authority, path, query,
/// fragment), checks the parts a request cannot do without, and percent-encodes (as UTF-8) what
/// each part does not allow before `URL(string:)` sees it:
///
/// - `https://example.com/a b/ü?q=x|y` becomes `https://example.com/a%20b/%C3%BC?q=x%7Cy`;
/// - a valid escape such as `%20` is kept as it is (never encoded twice), a lone `%` becomes `%25`;
/// - the scheme must be `http` or `https`, the host must be there and be ASCII letters, digits,
///   `-`, `.`, `_`, `~` (or an IPv6 literal in brackets), and a port must be 1 to 65535.
///
/// A non-ASCII host (`https://bücher.example`) is an invalid URL: international domain names
/// are not converted to punycode; give the host in its ASCII `xn--` form.
enum URLText {
    /// The URL for a form's (already trimmed) URL text.
    /// - Parameter text: The text.
    /// - Returns: The URL, with everything a part does not allow percent-encoded.
    /// - Throws: ``NetworkError`` of kind ``NetworkError/Kind/invalidURL``, saying what is wrong.
    static func url(from text: String) throws(NetworkError) -> URL {
        let encoded = try encoded(text)
        guard let url = URL(string: encoded) else {
            throw invalid(text, "is not a valid URL")
        }
        return url
    }

    /// The URL text with every part checked and percent-encoded (see the type's notes).
    /// - Parameter text: The text.
    /// - Returns: The encoded text.
    /// - Throws: ``NetworkError`` of kind ``NetworkError/Kind/invalidURL``.
    static func encoded(_ text: String) throws(NetworkError) -> String {
        guard !text.isEmpty else {
            throw NetworkError(.invalidURL, failureReason: "The URL is empty.")
        }
        let bytes = Array(text.utf8)
        // scheme ":" "//" authority
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0,
            bytes[0..<colon].allSatisfy(isSchemeByte), isLetter(bytes[0])
        else {
            throw invalid(
                text,
                "has no scheme (such as https://): a relative URL needs the session's baseURL "
                    + "(Session.Configuration.baseURL)")
        }
        let scheme = String(decoding: bytes[0..<colon], as: UTF8.self).lowercased()
        guard scheme == "http" || scheme == "https" else {
            throw invalid(text, "is not an http or https URL (scheme \"\(scheme)\")")
        }
        let slashes = colon + 1
        guard bytes.count >= slashes + 2, bytes[slashes] == slash, bytes[slashes + 1] == slash else {
            throw invalid(text, "has no host")
        }
        let authorityStart = slashes + 2
        let authorityEnd = bytes[authorityStart...].firstIndex(where: endsAuthority) ?? bytes.count
        var output = Array(bytes[0..<authorityStart])
        output += try authority(bytes[authorityStart..<authorityEnd], text: text)

        // path, "?" query, "#" fragment
        let fragmentStart = bytes[authorityEnd...].firstIndex(of: hash) ?? bytes.count
        let queryStart = bytes[authorityEnd..<fragmentStart].firstIndex(of: questionMark) ?? fragmentStart
        encode(bytes[authorityEnd..<queryStart], allowing: isPathByte, into: &output)
        if queryStart < fragmentStart {
            output.append(questionMark)
            encode(bytes[(queryStart + 1)..<fragmentStart], allowing: isQueryByte, into: &output)
        }
        if fragmentStart < bytes.count {
            output.append(hash)
            encode(bytes[(fragmentStart + 1)...], allowing: isQueryByte, into: &output)
        }
        return String(decoding: output, as: UTF8.self)
    }

    // MARK: Authority

    /// `[userinfo "@"] host [":" port]`, checked, with the user info percent-encoded.
    private static func authority(_ bytes: ArraySlice<UInt8>, text: String) throws(NetworkError) -> [UInt8] {
        var output: [UInt8] = []
        var hostStart = bytes.startIndex
        if let at = bytes.lastIndex(of: UInt8(ascii: "@")) {
            encode(bytes[bytes.startIndex..<at], allowing: isUserInfoByte, into: &output)
            output.append(UInt8(ascii: "@"))
            hostStart = at + 1
        }
        let hostAndPort = bytes[hostStart...]
        let portColon: Int?
        if hostAndPort.first == UInt8(ascii: "[") {
            guard let close = hostAndPort.firstIndex(of: UInt8(ascii: "]")) else {
                throw invalid(text, "has an IPv6 host without its closing \"]\"")
            }
            let literal = hostAndPort[(hostStart + 1)..<close]
            guard !literal.isEmpty, literal.contains(UInt8(ascii: ":")), literal.allSatisfy(isIPv6Byte) else {
                throw invalid(text, "has an invalid IPv6 host")
            }
            guard close + 1 == hostAndPort.endIndex || hostAndPort[close + 1] == UInt8(ascii: ":") else {
                throw invalid(text, "has characters after its IPv6 host")
            }
            portColon = close + 1 < hostAndPort.endIndex ? close + 1 : nil
        } else {
            portColon = hostAndPort.firstIndex(of: UInt8(ascii: ":"))
            let host = hostAndPort[hostStart..<(portColon ?? hostAndPort.endIndex)]
            guard !host.isEmpty else { throw invalid(text, "has no host") }
            if host.contains(where: { $0 >= 0x80 }) {
                throw invalid(
                    text,
                    "has a non-ASCII host: international domain names are not converted, give the host's "
                        + "ASCII (xn--) form")
            }
            guard host.allSatisfy(isHostByte) else {
                throw invalid(text, "has a host with characters a host name cannot have")
            }
        }
        guard let portColon else {
            output += hostAndPort
            return output
        }
        output += hostAndPort[hostStart..<portColon]
        let digits = hostAndPort[(portColon + 1)...]
        // An empty port ("host:/") means the scheme's default, as in RFC 3986.
        guard !digits.isEmpty else { return output }
        guard digits.count <= 5, digits.allSatisfy(isDigit),
            let port = Int(String(decoding: digits, as: UTF8.self)), (1...65_535).contains(port)
        else {
            throw invalid(text, "has an invalid port (it must be a number from 1 to 65535)")
        }
        output.append(UInt8(ascii: ":"))
        output += digits
        return output
    }

    // MARK: Percent-encoding

    /// Appends `bytes`, percent-encoding each one `allowed` refuses; a valid `%XX` escape is
    /// kept, any other `%` is encoded.
    private static func encode(
        _ bytes: ArraySlice<UInt8>, allowing allowed: (UInt8) -> Bool, into output: inout [UInt8]
    ) {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == percent, index + 2 < bytes.endIndex, isHexDigit(bytes[index + 1]),
                isHexDigit(bytes[index + 2])
            {
                output += bytes[index...(index + 2)]
                index += 3
                continue
            }
            if byte != percent, allowed(byte) {
                output.append(byte)
            } else {
                output += [percent, hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]]
            }
            index += 1
        }
    }

    private static func invalid(_ text: String, _ why: String) -> NetworkError {
        NetworkError(.invalidURL, failureReason: "\"\(text)\" \(why).")
    }

    // MARK: Character classes (RFC 3986, section 2 and 3)

    private static let (slash, hash, questionMark, percent) = (
        UInt8(ascii: "/"), UInt8(ascii: "#"), UInt8(ascii: "?"), UInt8(ascii: "%")
    )
    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
    }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: ".")
    }

    private static func endsAuthority(_ byte: UInt8) -> Bool {
        byte == slash || byte == questionMark || byte == hash
    }

    /// ALPHA / DIGIT / "-" / "." / "_" / "~"
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
    }

    /// "!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "="
    private static func isSubDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "="):
            true
        default:
            false
        }
    }

    /// A host name, kept to what every platform's URL parser accepts.
    private static func isHostByte(_ byte: UInt8) -> Bool { isUnreserved(byte) }

    private static func isIPv6Byte(_ byte: UInt8) -> Bool {
        isHexDigit(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".")
    }

    private static func isUserInfoByte(_ byte: UInt8) -> Bool {
        isUnreserved(byte) || isSubDelimiter(byte) || byte == UInt8(ascii: ":")
    }

    /// pchar / "/"
    private static func isPathByte(_ byte: UInt8) -> Bool {
        isUserInfoByte(byte) || byte == UInt8(ascii: "@") || byte == slash
    }

    /// pchar / "/" / "?" (the query's and the fragment's characters)
    private static func isQueryByte(_ byte: UInt8) -> Bool {
        isPathByte(byte) || byte == questionMark
    }
}
