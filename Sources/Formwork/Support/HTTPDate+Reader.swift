import Foundation

extension HTTPDate {
    /// Reads the three forms of RFC 9110 §5.6.7 byte by byte; every method returns `nil` at the
    /// first byte that does not fit its grammar, and at trailing bytes.
    struct Reader {
        private var bytes: ArraySlice<UInt8>

        init(bytes: ArraySlice<UInt8>) {
            self.bytes = bytes
        }

        /// `Sun, 06 Nov 1994 08:49:37 GMT`
        mutating func imfFixdate() -> Date? {
            guard name(in: shortDays) != nil, literal(", "), let day = digits(2), literal(" "),
                let month = name(in: months), literal(" "), let year = digits(4), literal(" "),
                let time = timeOfDay(), literal(" GMT"), bytes.isEmpty
            else { return nil }
            return date(year: year, month: month + 1, day: day, seconds: time)
        }

        /// `Sunday, 06-Nov-94 08:49:37 GMT`
        mutating func rfc850(now: Date) -> Date? {
            guard name(in: longDays) != nil, literal(", "), let day = digits(2), literal("-"),
                let month = name(in: months), literal("-"), let year = digits(2), literal(" "),
                let time = timeOfDay(), literal(" GMT"), bytes.isEmpty
            else { return nil }
            return date(year: rfc850Year(year, now: now), month: month + 1, day: day, seconds: time)
        }

        /// `Sun Nov  6 08:49:37 1994` (a one-digit day is padded with a space, not a zero).
        mutating func asctime() -> Date? {
            guard name(in: shortDays) != nil, literal(" "), let month = name(in: months), literal(" ")
            else { return nil }
            let day: Int?
            if literal(" ") { day = digits(1) } else { day = digits(2) }
            guard let day, literal(" "), let time = timeOfDay(), literal(" "), let year = digits(4),
                bytes.isEmpty
            else { return nil }
            return date(year: year, month: month + 1, day: day, seconds: time)
        }

        /// `HH:MM:SS` as seconds into the day (a leap second, `:60`, is allowed).
        private mutating func timeOfDay() -> Int? {
            guard let hour = digits(2), literal(":"), let minute = digits(2), literal(":"),
                let second = digits(2), hour < 24, minute < 60, second <= 60
            else { return nil }
            return hour * 3600 + minute * 60 + second
        }

        private func date(year: Int, month: Int, day: Int, seconds: Int) -> Date? {
            guard day >= 1, day <= daysIn(month: month, year: year) else { return nil }
            let days = HTTPDate.days(year: year, month: month, day: day)
            return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + seconds))
        }

        /// Exactly `count` ASCII digits.
        private mutating func digits(_ count: Int) -> Int? {
            guard bytes.count >= count else { return nil }
            var value = 0
            for byte in bytes.prefix(count) {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            bytes = bytes.dropFirst(count)
            return value
        }

        /// Consumes `text` when the bytes start with it (case-sensitive).
        private mutating func literal(_ text: String) -> Bool {
            guard bytes.starts(with: text.utf8) else { return false }
            bytes = bytes.dropFirst(text.utf8.count)
            return true
        }

        /// The index of the name the bytes start with (case-sensitive, as RFC 9110 writes them).
        private mutating func name(in names: [String]) -> Int? {
            guard let index = names.firstIndex(where: { bytes.starts(with: $0.utf8) }) else { return nil }
            bytes = bytes.dropFirst(names[index].utf8.count)
            return index
        }
    }
}
