import Foundation

/// HTTP dates (RFC 9110 §5.6.7): `Sun, 06 Nov 1994 08:49:37 GMT` (IMF-fixdate, what servers send),
/// and the obsolete RFC 850 and asctime forms that recipients must still accept.
enum HTTPDate {
    /// The formats tried in order, all in GMT with the POSIX locale.
    private static let formats = [
        "EEE, dd MMM yyyy HH:mm:ss zzz",  // IMF-fixdate
        "EEEE, dd-MMM-yy HH:mm:ss zzz",  // RFC 850
        "EEE MMM d HH:mm:ss yyyy",  // asctime
    ]

    /// The date, or nil when `text` is not an HTTP date.
    static func parse(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return nil }
        // asctime pads the day with a space ("Nov  6"); collapse runs of spaces for the formatter.
        let normalized = trimmed.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        for format in formats {
            if let date = formatter(format).date(from: normalized) {
                return date
            }
        }
        return nil
    }

    /// `date` as an IMF-fixdate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func string(from date: Date) -> String {
        formatter(formats[0]).string(from: date)
    }

    /// A new formatter each time: `DateFormatter` is not `Sendable`, and HTTP dates are parsed
    /// rarely (validators, `Retry-After`), so caching is not worth a lock.
    private static func formatter(_ format: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = format
        return formatter
    }
}
