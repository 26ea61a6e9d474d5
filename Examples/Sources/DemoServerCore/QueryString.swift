/// Parsing of `a=1&b=x%20y` strings, used for URL queries and `application/x-www-form-urlencoded`
/// bodies. Percent escapes are decoded; `+` is kept as a literal plus (not a space) so that tests
/// see exactly what a client encoded.
enum QueryString {
    /// The name/value pairs in order. A pair with no `=` has an empty value; empty pairs are skipped.
    static func items(_ query: Substring) -> [(name: String, value: String)] {
        var items: [(name: String, value: String)] = []
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            if let equals = pair.firstIndex(of: "=") {
                let name = percentDecoded(pair[..<equals])
                let value = percentDecoded(pair[pair.index(after: equals)...])
                items.append((name, value))
            } else {
                items.append((percentDecoded(pair), ""))
            }
        }
        return items
    }

    /// The first value for `name`, if any.
    static func value(_ name: String, in items: [(name: String, value: String)]) -> String? {
        items.first(where: { $0.name == name })?.value
    }

    /// Decodes `%XX` escapes; a malformed escape is kept as it is. Invalid UTF-8 is repaired.
    static func percentDecoded(_ text: Substring) -> String {
        guard text.contains("%") else { return String(text) }
        let utf8 = Array(text.utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "%"), index + 2 < utf8.count,
                let high = hexValue(utf8[index + 1]), let low = hexValue(utf8[index + 2])
            {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
