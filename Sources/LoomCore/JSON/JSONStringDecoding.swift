/// Decoding JSON strings: escapes, \\u sequences and surrogate pairs, UTF-8 validation.
extension JSONParser {
    /// Parses the string starting at the quote at `i`. Strings without escapes are decoded straight
    /// from the input bytes.
    mutating func parseString() throws(Diagnostic) -> String {
        let openPos = position
        i += 1
        let start = i
        while i < end {
            // Eight plain bytes at a time (no quote, backslash, control byte or non-ASCII byte:
            // `StringScan.plainBytes`); the byte loop below takes the first other one.
            while end - i >= 8 {
                let n = StringScan.plainBytes(p.word(at: i))
                i += n
                if n < 8 { break }
            }
            guard i < end else { break }
            let c = p[i]
            if c == quote {
                i += 1
                return shortString(start, count: i - 1 - start)
            }
            if c == backslash { return try parseEscapedString(from: start, openedAt: openPos) }
            if c < 0x20 { throw controlCharacter(c) }
            i += c < 0x80 ? 1 : try validUTF8Length()
        }
        throw error("unterminated string", at: openPos)
    }

    /// The rest of a string with escapes, from `start` (just after the opening quote); `i` is at the
    /// first backslash.
    mutating func parseEscapedString(from start: Int, openedAt openPos: SourcePosition) throws(Diagnostic) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(i - start + 16)
        p.append(start, count: i - start, to: &bytes)
        while i < end {
            let c = p[i]
            if c == quote {
                i += 1
                return String(decoding: bytes, as: UTF8.self)
            }
            if c == backslash {
                try appendEscape(to: &bytes)
            } else if c < 0x20 {
                throw controlCharacter(c)
            } else if c < 0x80 {
                bytes.append(c)
                i += 1
            } else {
                let n = try validUTF8Length()
                p.append(i, count: n, to: &bytes)
                i += n
            }
        }
        throw error("unterminated string", at: openPos)
    }

    mutating func appendEscape(to bytes: inout [UInt8]) throws(Diagnostic) {
        let escapePos = position
        guard i + 1 < end else { throw error("unexpected end of file in string escape") }
        let c = p[i + 1]
        i += 2
        switch c {
        case quote, backslash, UInt8(ascii: "/"): bytes.append(c)
        case UInt8(ascii: "b"): bytes.append(0x08)
        case UInt8(ascii: "f"): bytes.append(0x0C)
        case UInt8(ascii: "n"): bytes.append(0x0A)
        case UInt8(ascii: "r"): bytes.append(0x0D)
        case UInt8(ascii: "t"): bytes.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4(escapePos)
            if (0xDC00...0xDFFF).contains(scalar) {
                throw error("lone surrogate '\\u\(hex4Text(scalar))' (a low surrogate must follow a high one)", at: escapePos)
            }
            if (0xD800...0xDBFF).contains(scalar) {
                let lowPos = position
                guard i + 1 < end, p[i] == backslash, p[i + 1] == UInt8(ascii: "u") else {
                    throw error("lone surrogate '\\u\(hex4Text(scalar))' (must be followed by a low surrogate \\uDC00-\\uDFFF)", at: escapePos)
                }
                i += 2
                let low = try hex4(lowPos)
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw error("lone surrogate '\\u\(hex4Text(scalar))' (must be followed by a low surrogate \\uDC00-\\uDFFF)", at: escapePos)
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            appendUTF8(scalar, to: &bytes)
        default:
            i -= 2
            if c < 0x20 || c >= 0x7F {
                throw error("invalid escape: '\\' followed by byte \(hex(c))")
            }
            throw error("invalid escape '\\\(Character(Unicode.Scalar(c)))'")
        }
    }

    /// Four hex digits at `i` (after `\u`).
    mutating func hex4(_ escapePos: SourcePosition) throws(Diagnostic) -> UInt32 {
        var value: UInt32 = 0
        for k in 0..<4 {
            guard i + k < end else { throw error("unexpected end of file in '\\u' escape", at: escapePos) }
            let c = p[i + k]
            let digit: UInt8
            switch c {
            case zero...nine: digit = c - zero
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = c - UInt8(ascii: "A") + 10
            default: throw error("invalid '\\u' escape: expected 4 hex digits", at: escapePos)
            }
            value = value << 4 | UInt32(digit)
        }
        i += 4
        return value
    }

    func hex4Text(_ v: UInt32) -> String {
        let s = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - s.count)) + s
    }

    func appendUTF8(_ v: UInt32, to bytes: inout [UInt8]) {
        switch v {
        case 0..<0x80:
            bytes.append(UInt8(v))
        case 0x80..<0x800:
            bytes.append(UInt8(0xC0 | v >> 6))
            bytes.append(UInt8(0x80 | v & 0x3F))
        case 0x800..<0x10000:
            bytes.append(UInt8(0xE0 | v >> 12))
            bytes.append(UInt8(0x80 | v >> 6 & 0x3F))
            bytes.append(UInt8(0x80 | v & 0x3F))
        default:
            bytes.append(UInt8(0xF0 | v >> 18))
            bytes.append(UInt8(0x80 | v >> 12 & 0x3F))
            bytes.append(UInt8(0x80 | v >> 6 & 0x3F))
            bytes.append(UInt8(0x80 | v & 0x3F))
        }
    }

    func controlCharacter(_ c: UInt8) -> Diagnostic {
        let names: [UInt8: String] = [0x0A: "\\n", 0x09: "\\t", 0x0D: "\\r", 0x08: "\\b", 0x0C: "\\f"]
        if c == 0x0A { return error("unterminated string (line break inside a string; write it as \\n)") }
        let written = names[c] ?? "\\u00" + hex(c).dropFirst(2)
        return error("control character \(hex(c)) in string must be escaped as \(written)")
    }

    /// Length of the valid multi-byte UTF-8 sequence at `i`, or an error naming its first byte.
    func validUTF8Length() throws(Diagnostic) -> Int {
        let n = utf8SequenceLength(at: i)
        if n == 0 { throw error("invalid UTF-8 byte \(hex(p[i]))") }
        return n
    }

    /// Length of the well-formed UTF-8 sequence starting with a non-ASCII byte at `j`, 0 if invalid.
    func utf8SequenceLength(at j: Int) -> Int { UTF8Sequence.check(p, at: j, end: end).length }

    func hex(_ c: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return "0x\(digits[Int(c >> 4)])\(digits[Int(c & 15)])"
    }
}
