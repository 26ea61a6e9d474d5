import Foundation

/// MD5 (RFC 1321), to check the demo server's upload digests. Test support only: MD5 is not for security.
public enum MD5 {
    private static let shifts: [UInt32] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
        5, 9, 14,
        20, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10,
        15, 21, 6,
        10, 15, 21,
    ]
    private static let constants: [UInt32] = (0..<64).map {
        UInt32(truncatingIfNeeded: Int64(abs(sin(Double($0 + 1))) * 4_294_967_296))
    }

    /// The lowercase hex digest of `data`.
    public static func hex(_ data: Data) -> String {
        var state: (UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476)
        var message = [UInt8](data)
        let bitLength = UInt64(message.count) * 8
        message.append(0x80)
        while message.count % 64 != 56 { message.append(0) }
        for shift in stride(from: 0, to: 64, by: 8) {
            message.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        var words = [UInt32](repeating: 0, count: 16)
        for chunk in stride(from: 0, to: message.count, by: 64) {
            for index in 0..<16 {
                let base = chunk + index * 4
                words[index] =
                    UInt32(message[base]) | UInt32(message[base + 1]) << 8 | UInt32(message[base + 2]) << 16
                    | UInt32(message[base + 3]) << 24
            }
            var (a, b, c, d) = state
            for round in 0..<64 {
                var f: UInt32
                let g: Int
                switch round {
                case 0..<16: (f, g) = ((b & c) | (~b & d), round)
                case 16..<32: (f, g) = ((d & b) | (~d & c), (5 * round + 1) % 16)
                case 32..<48: (f, g) = (b ^ c ^ d, (3 * round + 5) % 16)
                default: (f, g) = (c ^ (b | ~d), (7 * round) % 16)
                }
                f = f &+ a &+ constants[round] &+ words[g]
                a = d
                d = c
                c = b
                b = b &+ (f << shifts[round] | f >> (32 - shifts[round]))
            }
            state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d)
        }
        return [state.0, state.1, state.2, state.3].flatMap { word in
            (0..<4).map { String(format: "%02x", UInt8(truncatingIfNeeded: word >> ($0 * 8))) }
        }.joined()
    }

    /// The hex digest of a file, with the system's `md5sum` when there is one (fast for big files),
    /// else in Swift.
    public static func hex(ofFile url: URL) throws -> String {
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/md5sum") {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/md5sum")
            process.arguments = [url.path]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            if process.terminationStatus == 0, let digest = text.split(separator: " ").first {
                return String(digest)
            }
        }
        return hex(try Data(contentsOf: url))
    }
}
