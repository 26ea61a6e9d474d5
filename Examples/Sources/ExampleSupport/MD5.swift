/// MD5 (RFC 1321), fed incrementally: the checksums the demo server's `/upload` reports and the
/// demo's checks of what it moved.
///
/// Not for security: it only lets a test compare what the server received with what it sent.
/// The 64 steps are unrolled with the constants inline: ~400 MB/s (the target is built with -O,
/// even in debug builds; unoptimised it would be ~90 MB/s). `/upload?md5=0` skips hashing.
public struct MD5: Sendable {
    /// A digest with nothing fed yet.
    public init() {}

    private var a0: UInt32 = 0x6745_2301
    private var b0: UInt32 = 0xefcd_ab89
    private var c0: UInt32 = 0x98ba_dcfe
    private var d0: UInt32 = 0x1032_5476
    /// Bytes waiting for a full 64-byte block.
    private var pending: [UInt8] = []
    /// Bytes fed so far.
    public private(set) var count: UInt64 = 0

    /// Feeds more bytes.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        count &+= UInt64(bytes.count)
        var offset = 0
        if !pending.isEmpty {
            let take = min(64 - pending.count, bytes.count)
            pending.append(contentsOf: UnsafeRawBufferPointer(start: base, count: take))
            offset = take
            guard pending.count == 64 else { return }
            pending.withUnsafeBytes { block in
                if let start = block.baseAddress { compress(start) }
            }
            pending.removeAll(keepingCapacity: true)
        }
        while bytes.count - offset >= 64 {
            compress(base + offset)
            offset += 64
        }
        if offset < bytes.count {
            pending.append(
                contentsOf: UnsafeRawBufferPointer(start: base + offset, count: bytes.count - offset))
        }
    }

    /// Feeds the bytes of an array.
    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The digest as 32 lower-case hex digits. The value must not be fed afterwards.
    public mutating func finalize() -> String {
        let bitCount = count &* 8
        var tail: [UInt8] = [0x80]
        tail += [UInt8](repeating: 0, count: (55 - Int(count % 64) + 64) % 64)
        for shift in stride(from: 0, to: 64, by: 8) {
            tail.append(UInt8(truncatingIfNeeded: bitCount >> UInt64(shift)))
        }
        update(tail)
        var hex = ""
        for word in [a0, b0, c0, d0] {
            for shift in stride(from: 0, to: 32, by: 8) {
                let byte = UInt8(truncatingIfNeeded: word >> UInt32(shift))
                hex += (byte < 16 ? "0" : "") + String(byte, radix: 16)
            }
        }
        return hex
    }

    /// One 64-byte block.
    private mutating func compress(_ block: UnsafeRawPointer) {
        func word(_ index: Int) -> UInt32 {
            UInt32(littleEndian: block.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))
        }
        func rotate(_ value: UInt32, _ amount: UInt32) -> UInt32 { value << amount | value >> (32 - amount) }
        func f(_ b: UInt32, _ c: UInt32, _ d: UInt32) -> UInt32 { (b & c) | (~b & d) }
        func g(_ b: UInt32, _ c: UInt32, _ d: UInt32) -> UInt32 { (b & d) | (c & ~d) }
        func h(_ b: UInt32, _ c: UInt32, _ d: UInt32) -> UInt32 { b ^ c ^ d }
        func i(_ b: UInt32, _ c: UInt32, _ d: UInt32) -> UInt32 { c ^ (b | ~d) }
        let x0 = word(0)
        let x1 = word(1)
        let x2 = word(2)
        let x3 = word(3)
        let x4 = word(4)
        let x5 = word(5)
        let x6 = word(6)
        let x7 = word(7)
        let x8 = word(8)
        let x9 = word(9)
        let x10 = word(10)
        let x11 = word(11)
        let x12 = word(12)
        let x13 = word(13)
        let x14 = word(14)
        let x15 = word(15)
        var a = a0
        var b = b0
        var c = c0
        var d = d0
        a = b &+ rotate(a &+ f(b, c, d) &+ x0 &+ 0xd76a_a478, 7)
        d = a &+ rotate(d &+ f(a, b, c) &+ x1 &+ 0xe8c7_b756, 12)
        c = d &+ rotate(c &+ f(d, a, b) &+ x2 &+ 0x2420_70db, 17)
        b = c &+ rotate(b &+ f(c, d, a) &+ x3 &+ 0xc1bd_ceee, 22)
        a = b &+ rotate(a &+ f(b, c, d) &+ x4 &+ 0xf57c_0faf, 7)
        d = a &+ rotate(d &+ f(a, b, c) &+ x5 &+ 0x4787_c62a, 12)
        c = d &+ rotate(c &+ f(d, a, b) &+ x6 &+ 0xa830_4613, 17)
        b = c &+ rotate(b &+ f(c, d, a) &+ x7 &+ 0xfd46_9501, 22)
        a = b &+ rotate(a &+ f(b, c, d) &+ x8 &+ 0x6980_98d8, 7)
        d = a &+ rotate(d &+ f(a, b, c) &+ x9 &+ 0x8b44_f7af, 12)
        c = d &+ rotate(c &+ f(d, a, b) &+ x10 &+ 0xffff_5bb1, 17)
        b = c &+ rotate(b &+ f(c, d, a) &+ x11 &+ 0x895c_d7be, 22)
        a = b &+ rotate(a &+ f(b, c, d) &+ x12 &+ 0x6b90_1122, 7)
        d = a &+ rotate(d &+ f(a, b, c) &+ x13 &+ 0xfd98_7193, 12)
        c = d &+ rotate(c &+ f(d, a, b) &+ x14 &+ 0xa679_438e, 17)
        b = c &+ rotate(b &+ f(c, d, a) &+ x15 &+ 0x49b4_0821, 22)
        a = b &+ rotate(a &+ g(b, c, d) &+ x1 &+ 0xf61e_2562, 5)
        d = a &+ rotate(d &+ g(a, b, c) &+ x6 &+ 0xc040_b340, 9)
        c = d &+ rotate(c &+ g(d, a, b) &+ x11 &+ 0x265e_5a51, 14)
        b = c &+ rotate(b &+ g(c, d, a) &+ x0 &+ 0xe9b6_c7aa, 20)
        a = b &+ rotate(a &+ g(b, c, d) &+ x5 &+ 0xd62f_105d, 5)
        d = a &+ rotate(d &+ g(a, b, c) &+ x10 &+ 0x0244_1453, 9)
        c = d &+ rotate(c &+ g(d, a, b) &+ x15 &+ 0xd8a1_e681, 14)
        b = c &+ rotate(b &+ g(c, d, a) &+ x4 &+ 0xe7d3_fbc8, 20)
        a = b &+ rotate(a &+ g(b, c, d) &+ x9 &+ 0x21e1_cde6, 5)
        d = a &+ rotate(d &+ g(a, b, c) &+ x14 &+ 0xc337_07d6, 9)
        c = d &+ rotate(c &+ g(d, a, b) &+ x3 &+ 0xf4d5_0d87, 14)
        b = c &+ rotate(b &+ g(c, d, a) &+ x8 &+ 0x455a_14ed, 20)
        a = b &+ rotate(a &+ g(b, c, d) &+ x13 &+ 0xa9e3_e905, 5)
        d = a &+ rotate(d &+ g(a, b, c) &+ x2 &+ 0xfcef_a3f8, 9)
        c = d &+ rotate(c &+ g(d, a, b) &+ x7 &+ 0x676f_02d9, 14)
        b = c &+ rotate(b &+ g(c, d, a) &+ x12 &+ 0x8d2a_4c8a, 20)
        a = b &+ rotate(a &+ h(b, c, d) &+ x5 &+ 0xfffa_3942, 4)
        d = a &+ rotate(d &+ h(a, b, c) &+ x8 &+ 0x8771_f681, 11)
        c = d &+ rotate(c &+ h(d, a, b) &+ x11 &+ 0x6d9d_6122, 16)
        b = c &+ rotate(b &+ h(c, d, a) &+ x14 &+ 0xfde5_380c, 23)
        a = b &+ rotate(a &+ h(b, c, d) &+ x1 &+ 0xa4be_ea44, 4)
        d = a &+ rotate(d &+ h(a, b, c) &+ x4 &+ 0x4bde_cfa9, 11)
        c = d &+ rotate(c &+ h(d, a, b) &+ x7 &+ 0xf6bb_4b60, 16)
        b = c &+ rotate(b &+ h(c, d, a) &+ x10 &+ 0xbebf_bc70, 23)
        a = b &+ rotate(a &+ h(b, c, d) &+ x13 &+ 0x289b_7ec6, 4)
        d = a &+ rotate(d &+ h(a, b, c) &+ x0 &+ 0xeaa1_27fa, 11)
        c = d &+ rotate(c &+ h(d, a, b) &+ x3 &+ 0xd4ef_3085, 16)
        b = c &+ rotate(b &+ h(c, d, a) &+ x6 &+ 0x0488_1d05, 23)
        a = b &+ rotate(a &+ h(b, c, d) &+ x9 &+ 0xd9d4_d039, 4)
        d = a &+ rotate(d &+ h(a, b, c) &+ x12 &+ 0xe6db_99e5, 11)
        c = d &+ rotate(c &+ h(d, a, b) &+ x15 &+ 0x1fa2_7cf8, 16)
        b = c &+ rotate(b &+ h(c, d, a) &+ x2 &+ 0xc4ac_5665, 23)
        a = b &+ rotate(a &+ i(b, c, d) &+ x0 &+ 0xf429_2244, 6)
        d = a &+ rotate(d &+ i(a, b, c) &+ x7 &+ 0x432a_ff97, 10)
        c = d &+ rotate(c &+ i(d, a, b) &+ x14 &+ 0xab94_23a7, 15)
        b = c &+ rotate(b &+ i(c, d, a) &+ x5 &+ 0xfc93_a039, 21)
        a = b &+ rotate(a &+ i(b, c, d) &+ x12 &+ 0x655b_59c3, 6)
        d = a &+ rotate(d &+ i(a, b, c) &+ x3 &+ 0x8f0c_cc92, 10)
        c = d &+ rotate(c &+ i(d, a, b) &+ x10 &+ 0xffef_f47d, 15)
        b = c &+ rotate(b &+ i(c, d, a) &+ x1 &+ 0x8584_5dd1, 21)
        a = b &+ rotate(a &+ i(b, c, d) &+ x8 &+ 0x6fa8_7e4f, 6)
        d = a &+ rotate(d &+ i(a, b, c) &+ x15 &+ 0xfe2c_e6e0, 10)
        c = d &+ rotate(c &+ i(d, a, b) &+ x6 &+ 0xa301_4314, 15)
        b = c &+ rotate(b &+ i(c, d, a) &+ x13 &+ 0x4e08_11a1, 21)
        a = b &+ rotate(a &+ i(b, c, d) &+ x4 &+ 0xf753_7e82, 6)
        d = a &+ rotate(d &+ i(a, b, c) &+ x11 &+ 0xbd3a_f235, 10)
        c = d &+ rotate(c &+ i(d, a, b) &+ x2 &+ 0x2ad7_d2bb, 15)
        b = c &+ rotate(b &+ i(c, d, a) &+ x9 &+ 0xeb86_d391, 21)
        a0 &+= a
        b0 &+= b
        c0 &+= c
        d0 &+= d
    }
}
