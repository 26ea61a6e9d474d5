import Foundation

/// Reads a code or a message at a key path of a JSON body as text, the way `.warn`, `.inform`
/// and envelopes compare codes: a JSON string as it is, a JSON number as its decimal text
/// (integral numbers without a fraction, so `200`, `200.0` and `"200"` all read `"200"`).
enum JSONScalar {
    /// What a body holds at a path.
    enum Reading: Sendable, Equatable {
        /// A string, or a number as decimal text.
        case text(String)
        /// Nothing usable: the path is missing, or the value is `null`.
        case absent(reason: String)
        /// Something that is not a string or a number: an object, an array, a Boolean.
        case notScalar
        /// The body is not JSON.
        case malformed(reason: String)

        /// The text, if there is one.
        var text: String? {
            guard case .text(let text) = self else { return nil }
            return text
        }
    }

    /// Reads the value at `path` in `data`.
    static func read(_ path: String, in data: Data) -> Reading {
        guard let keyPath = JSONKeyPath(path) else { return .absent(reason: "\"\(path)\" is not a key path") }
        let fragment: Data
        do {
            fragment = try keyPath.value(in: data)
        } catch {
            switch error {
            case .malformed(let offset, let reason):
                return .malformed(reason: "\(reason) at byte \(offset)")
            case .notFound(let component):
                return .absent(reason: "no value at \"\(path)\" (\"\(component)\" is missing)")
            }
        }
        guard let first = fragment.first else { return .notScalar }
        switch first {
        case UInt8(ascii: "\""):
            let value = try? JSONSerialization.jsonObject(with: fragment, options: .fragmentsAllowed)
            return (value as? String).map(Reading.text) ?? .notScalar
        case UInt8(ascii: "n"):
            return .absent(reason: "the value at \"\(path)\" is null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return number(String(decoding: fragment, as: UTF8.self)).map(Reading.text) ?? .notScalar
        default:
            return .notScalar
        }
    }

    /// A JSON number's canonical text: `200`, `-3`, `1.5`; `200.0` and `2e2` read `200`.
    static func number(_ literal: String) -> String? {
        let digits = literal.hasPrefix("-") ? literal.dropFirst() : Substring(literal)
        if !digits.isEmpty, digits.allSatisfy({ ("0"..."9").contains($0) }) {
            return digits.allSatisfy({ $0 == "0" }) ? "0" : literal
        }
        guard let value = Double(literal), value.isFinite else { return nil }
        if value == value.rounded(), abs(value) < 1e18 {
            return String(Int64(value))
        }
        return String(value)
    }
}
