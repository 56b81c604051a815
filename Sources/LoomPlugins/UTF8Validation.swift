/// Byte-level checks of strings coming out of Lua.

/// "0xff"
func hexByte(_ b: UInt8) -> String {
    let digits = Array("0123456789abcdef")
    return "0x\(digits[Int(b >> 4)])\(digits[Int(b & 15)])"
}

/// The offset of the first byte that is not part of well-formed UTF-8 (bad lead byte, bad or
/// missing continuation, overlong form, surrogate, beyond U+10FFFF), nil when all is well.
func firstInvalidUTF8(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
    var i = 0
    let end = b.count
    while i < end {
        let c = b[i]
        if c < 0x80 {
            i += 1
            continue
        }
        var n: Int
        var low: UInt8 = 0x80, high: UInt8 = 0xBF
        switch c {
        case 0xC2...0xDF: n = 2
        case 0xE0: n = 3; low = 0xA0
        case 0xED: n = 3; high = 0x9F
        case 0xE1...0xEF: n = 3
        case 0xF0: n = 4; low = 0x90
        case 0xF1...0xF3: n = 4
        case 0xF4: n = 4; high = 0x8F
        default: return i
        }
        guard end - i >= n else { return i }
        guard b[i + 1] >= low, b[i + 1] <= high else { return i + 1 }
        for k in 2..<n where b[i + k] & 0xC0 != 0x80 { return i + k }
        i += n
    }
    return nil
}
