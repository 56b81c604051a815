/// Byte-level checks of strings coming out of Lua.
import LoomCore

/// "0xff"
func hexByte(_ b: UInt8) -> String {
    let digits = Array("0123456789abcdef")
    return "0x\(digits[Int(b >> 4)])\(digits[Int(b & 15)])"
}

/// The offset of the first byte that is not part of well-formed UTF-8, nil when all is well.
func firstInvalidUTF8(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
    guard let p = b.baseAddress else { return nil }
    var i = 0
    while i < b.count {
        if p[i] < 0x80 {
            i += 1
            continue
        }
        let s = UTF8Sequence.check(p, at: i, end: b.count)
        if s.length == 0 { return s.badAt }
        i += s.length
    }
    return nil
}
