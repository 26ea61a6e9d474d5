import Foundation

/// HTTP dates (RFC 9110 §5.6.7), read exactly: the IMF-fixdate servers send
/// (`Sun, 06 Nov 1994 08:49:37 GMT`) and the two obsolete forms recipients must still accept,
/// RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`).
///
/// Anything else is not a date: another zone name (`UTC`), a missing comma, doubled spaces,
/// other separators, a one-digit hour. Callers decide what an invalid date means (for `Expires`:
/// already stale). The weekday is checked for its spelling only, not against the date.
enum HTTPDate {
    /// The date, or nil when `text` (surrounding spaces and tabs aside) is not an HTTP date; a
    /// two-digit RFC 850 year is read against the current time.
    static func parse(_ text: String) -> Date? {
        parse(text, now: Date())
    }

    /// The date, or nil when `text` (surrounding spaces and tabs aside) is not an HTTP date.
    /// - Parameters:
    ///   - text: The field value.
    ///   - now: The time a two-digit RFC 850 year is read against (see ``rfc850Year(_:now:)``).
    static func parse(_ text: String, now: Date) -> Date? {
        var bytes = ArraySlice(text.utf8)
        let isSpace: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        while let first = bytes.first, isSpace(first) { bytes = bytes.dropFirst() }
        while let last = bytes.last, isSpace(last) { bytes = bytes.dropLast() }
        var reader = Reader(bytes: bytes)
        let fourth = bytes.dropFirst(3).first
        if fourth == UInt8(ascii: ",") {
            return reader.imfFixdate()
        }
        if fourth == UInt8(ascii: " ") {
            return reader.asctime()
        }
        return reader.rfc850(now: now)
    }

    /// `date` as an IMF-fixdate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func string(from date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let time = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        // 1970-01-01 was a Thursday (index 4 from Sunday).
        let weekday = ((days % 7) + 11) % 7
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(shortDays[weekday]), \(two(day)) \(months[month - 1]) \(year) "
            + "\(two(time / 3600)):\(two(time / 60 % 60)):\(two(time % 60)) GMT"
    }

    /// The year of a two-digit RFC 850 year (RFC 9110 §5.6.7): the year with those last two
    /// digits that is at most 50 years after `now`'s year, else the one a century earlier.
    static func rfc850Year(_ twoDigits: Int, now: Date) -> Int {
        let (currentYear, _, _) = civil(fromDays: Int((now.timeIntervalSince1970 / 86_400).rounded(.down)))
        var year = currentYear - currentYear % 100 + twoDigits
        if year > currentYear + 50 { year -= 100 }
        return year
    }

    static let shortDays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let longDays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Days since 1970-01-01 of a proleptic Gregorian date.
    static func days(year: Int, month: Int, day: Int) -> Int {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a day count since 1970-01-01.
    static func civil(fromDays count: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = count + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The number of days of a month.
    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
