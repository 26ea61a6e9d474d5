import Foundation

/// What the command line asked for.
struct Options {
    /// How the demo paces itself.
    enum Mode: String {
        /// Plays every scenario with short pauses, no input needed; the reload prompt is tapped
        /// automatically once the server recovers.
        case standard = "default"
        /// Waits for Enter between scenarios and for `r` at the reload prompt.
        case interactive
        /// No pauses and plain output, for CI.
        case auto
    }

    /// The pacing.
    var mode = Mode.standard
    /// Size of the file downloaded (and cut part-way, then resumed).
    var downloadSize: Int64 = 256 << 20
    /// Size of the file uploaded as multipart.
    var uploadSize: Int64 = 128 << 20
    /// Scenario numbers to play (1-based); empty for all.
    var only: Set<Int> = []

    /// The usage text.
    static let usage = """
        usage: swift run --package-path Examples Demo [--interactive | --auto] [options]

        Plays Formwork's scenarios (loading masks, buttons, progress, resume, alerts, reload)
        against a demo server it starts itself, drawing the headless UI model as it changes.

          (no mode)          play every scenario with short pauses; needs no input
          --interactive      wait for Enter between scenarios and for r at the reload prompt
          --auto             no pauses, plain line-by-line output (for CI)
          --size BYTES       download size, e.g. 256M (default), 1G, 5000000
          --upload-size BYTES
                             multipart upload size (default 128M)
          --only LIST        play only these scenarios, e.g. --only 4,7
          -h, --help         show this help

        Exits 0 when every scenario behaved as shown, 1 otherwise.
        """

    /// Why the arguments could not be read.
    struct Invalid: Error, CustomStringConvertible {
        /// What is wrong.
        let description: String
    }

    /// Parses the arguments (without the program name). Returns `nil` for `--help`.
    static func parse(_ arguments: [String]) throws(Invalid) -> Options? {
        var options = Options()
        var modeFlags: [Mode] = []
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "-h", "--help":
                return nil
            case "--interactive":
                modeFlags.append(.interactive)
            case "--auto":
                modeFlags.append(.auto)
            case "--size", "--upload-size":
                guard let text = remaining.popFirst(), let bytes = byteCount(text), bytes >= 1 << 20 else {
                    throw Invalid(description: "\(argument) needs a size of at least 1M, e.g. 256M or 1G")
                }
                guard bytes <= 4 << 30 else { throw Invalid(description: "\(argument): at most 4G") }
                if argument == "--size" { options.downloadSize = bytes } else { options.uploadSize = bytes }
            case "--only":
                let numbers = remaining.popFirst()?.split(separator: ",").map { Int($0) } ?? []
                guard !numbers.isEmpty, numbers.allSatisfy({ $0 != nil }) else {
                    throw Invalid(description: "--only needs scenario numbers, e.g. --only 4,7")
                }
                options.only = Set(numbers.compactMap { $0 })
            default:
                throw Invalid(description: "unknown argument \(argument)")
            }
        }
        guard modeFlags.count <= 1 else {
            throw Invalid(description: "choose one of --interactive and --auto")
        }
        options.mode = modeFlags.first ?? .standard
        return options
    }

    /// `256M` → 268435456; plain numbers are bytes; K, M and G are powers of 1024.
    static func byteCount(_ text: String) -> Int64? {
        let units: [Character: Int64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        var digits = text.uppercased()
        if digits.hasSuffix("IB") || digits.hasSuffix("B") {
            digits.removeLast(digits.hasSuffix("IB") ? 2 : 1)
        }
        var multiplier: Int64 = 1
        if let last = digits.last, let unit = units[last] {
            multiplier = unit
            digits.removeLast()
        }
        guard let value = Int64(digits), value >= 0 else { return nil }
        let (product, overflow) = value.multipliedReportingOverflow(by: multiplier)
        return overflow ? nil : product
    }
}
