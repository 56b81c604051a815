/// Byte-level checks of strings coming out of Lua.
import LoomCore

/// "0xff"
func hexByte(_ b: UInt8) -> String {
    let digits = Array("0123456789abcdef")
    return "0x\(digits[Int(b >> 4)])\(digits[Int(b & 15)])"
}

// firstInvalidUTF8 (over a Lua string's bytes) is in Unsafe.swift.
