/// Well-formed UTF-8 (RFC 3629), one sequence at a time: used by the JSON reader and by the
/// conversion of strings coming out of Lua.
public enum UTF8Sequence {
    /// The sequence starting with the non-ASCII lead byte at `j` (bytes `0..<end` of `p`): its
    /// length when well formed, else 0 with the offset of the first byte that breaks it (a bad
    /// lead byte, a bad or missing continuation, an overlong form, a surrogate, beyond U+10FFFF).
    @inline(__always)
    static func check(_ p: ByteView, at j: Int, end: Int) -> (length: Int, badAt: Int) {
        var n: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF  // allowed range of the second byte
        switch p[j] {
        case 0xC2...0xDF: n = 2
        case 0xE0: n = 3; low = 0xA0
        case 0xED: n = 3; high = 0x9F
        case 0xE1...0xEF: n = 3
        case 0xF0: n = 4; low = 0x90
        case 0xF1...0xF3: n = 4
        case 0xF4: n = 4; high = 0x8F
        default: return (0, j)
        }
        guard end - j >= n else { return (0, j) }
        guard p[j + 1] >= low, p[j + 1] <= high else { return (0, j + 1) }
        for k in 2..<n where p[j + k] & 0xC0 != 0x80 { return (0, j + k) }
        return (n, j)
    }
}
