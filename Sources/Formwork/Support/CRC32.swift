/// CRC-32 (the IEEE 802.3 polynomial, reflected, as zlib and PNG use it): the checksum of a cache
/// entry file and of an outbox entry file, so that a torn or corrupted file is recognised.
enum CRC32 {
    /// The table of remainders for each byte value.
    private static let table: [UInt32] = (0..<256).map { byte in
        var remainder = UInt32(byte)
        for _ in 0..<8 {
            remainder = remainder & 1 == 1 ? (remainder >> 1) ^ 0xEDB8_8320 : remainder >> 1
        }
        return remainder
    }

    /// The checksum of `bytes`, continuing from `start` (the checksum of earlier bytes, or 0).
    /// - Parameters:
    ///   - bytes: The bytes to add.
    ///   - start: The checksum so far.
    /// - Returns: The checksum of everything seen.
    static func checksum(_ bytes: some Sequence<UInt8>, continuing start: UInt32 = 0) -> UInt32 {
        var crc = ~start
        for byte in bytes {
            crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return ~crc
    }
}
