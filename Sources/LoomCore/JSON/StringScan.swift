/// Scanning a JSON string's bytes eight at a time, for the reader (`JSONParser.parseString`) and
/// the flat scanner of user lines (`FlatScanner.plainSpan`).
enum StringScan {
    /// How many of the 8 bytes of `word` (the first the lowest: read little-endian) come before
    /// the first one a string's scan must look at: a quote, a backslash, a control byte
    /// (below 0x20) or a non-ASCII byte (0x80 and up); 8 when none is. A byte's flag below is
    /// exact for the first such byte (a borrow only reaches bytes above a flagged one), which is
    /// all the count reads. Written by hand: the standard library has no byte-class scan.
    @inline(__always)
    static func plainBytes(_ word: UInt64) -> Int {
        let w = UInt64(littleEndian: word)
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let q = w ^ (ones &* UInt64(quote)), b = w ^ (ones &* UInt64(backslash))
        // A byte's high bit set in `special`: its byte in `q` or `b` is zero (a quote or a
        // backslash), or the byte is below 0x20, or it is 0x80 or above.
        let special = ((q &- ones) & ~q) | ((b &- ones) & ~b) | (w &- ones &* 0x20) | w
        let flags = special & highs
        return flags == 0 ? 8 : flags.trailingZeroBitCount >> 3
    }
}
