/// The directives of a `Cache-Control` field (RFC 9111 §5.2), read leniently.
///
/// Names are compared without regard to letter case; a directive may carry an argument as a token
/// or a quoted string (`private="Set-Cookie"`). Several field lines are one comma-separated list.
/// When a directive appears twice, its first occurrence counts. Elements that are not directives
/// (empty, stray `=`) are skipped: a malformed field never fails a request.
struct CacheControl: Sendable, Equatable {
    /// Directive names in lower case, each with its argument (`nil` when written without one).
    private(set) var directives: [String: String?] = [:]

    /// Reads the directives of one or more field values.
    /// - Parameter values: Field values as received (each may hold several directives).
    init(_ values: [String]) {
        for value in values {
            for element in Self.elements(of: value) {
                let (name, argument) = Self.directive(element)
                guard !name.isEmpty, directives[name] == nil else { continue }
                directives[name] = .some(argument)
            }
        }
    }

    /// Reads the directives of one field value (`nil`: no field).
    /// - Parameter value: The field value.
    init(_ value: String?) {
        self.init(value.map { [$0] } ?? [])
    }

    /// Whether the directive is present, with or without an argument.
    func has(_ name: String) -> Bool { directives[name] != nil }

    /// The argument of a directive (`nil` when absent or written without one).
    func argument(_ name: String) -> String? { directives[name] ?? nil }

    /// A delta-seconds argument (RFC 9111 §1.2.2).
    /// - Returns: `nil` when the directive is absent; `.invalid` when its argument is not a
    ///   non-negative integer; else the seconds, capped at 2^31 as the RFC asks.
    func seconds(_ name: String) -> DeltaSeconds? {
        guard let entry = directives[name] else { return nil }
        return DeltaSeconds(entry ?? "")
    }

    /// A delta-seconds value as written in a field: valid seconds, or not a number.
    enum DeltaSeconds: Sendable, Equatable {
        /// A valid value, capped at 2^31 seconds.
        case seconds(Int)
        /// Not a delta-seconds value (sign, letters, empty).
        case invalid

        /// Reads `text`: ASCII digits only.
        init(_ text: String) {
            let digits = text.utf8
            guard !digits.isEmpty, digits.allSatisfy({ (48...57).contains($0) }) else {
                self = .invalid
                return
            }
            var value = 0
            for digit in digits {
                value = value * 10 + Int(digit - 48)
                if value >= Self.cap { break }
            }
            self = .seconds(min(value, Self.cap))
        }

        /// The largest value kept (RFC 9111 §1.2.2: 2147483648).
        static let cap = 2_147_483_648

        /// The seconds, or `nil` for an invalid value.
        var value: Int? {
            guard case .seconds(let value) = self else { return nil }
            return value
        }
    }

    // MARK: Parsing

    /// The comma-separated elements of a field value; commas inside quoted strings do not split.
    private static func elements(of value: String) -> [Substring] {
        var elements: [Substring] = []
        var start = value.startIndex
        var index = value.startIndex
        var quoted = false
        var escaped = false
        while index < value.endIndex {
            let character = value[index]
            if escaped {
                escaped = false
            } else if quoted && character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == "," && !quoted {
                elements.append(value[start..<index])
                start = value.index(after: index)
            }
            index = value.index(after: index)
        }
        elements.append(value[start..<value.endIndex])
        return elements
    }

    /// One element as a lower-case name and its argument (unquoted, escapes resolved).
    private static func directive(_ element: Substring) -> (String, String?) {
        let trimmed = trim(element)
        guard let equals = trimmed.firstIndex(of: "=") else { return (trimmed.lowercased(), nil) }
        let name = trim(trimmed[..<equals]).lowercased()
        let raw = trim(trimmed[trimmed.index(after: equals)...])
        guard raw.hasPrefix("\"") else { return (name, raw) }
        var argument = ""
        var escaped = false
        for character in raw.dropFirst() {
            if escaped {
                argument.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                break
            } else {
                argument.append(character)
            }
        }
        return (name, argument)
    }

    /// `text` without surrounding spaces and tabs.
    static func trim(_ text: Substring) -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !isSpace($0) }),
            let last = text.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(text[first...last])
    }
}
