/// Exact powers of ten for the fast double path (Clinger): 10^0 ... 10^22 are exact doubles.
let exactPowersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
]

/// Parsing JSON numbers: integers exactly, doubles by Clinger's fast path or the standard library.
extension JSONParser {
    /// A number token's text for messages (the run of number-like bytes from `start`).
    func token(from start: Int) -> String {
        var j = start
        while j < end && j - start < 40 && (isWordByte(p[j]) || p[j] == plus || p[j] == minus || p[j] == dot) { j += 1 }
        return p.string(start, count: j - start)
    }

    func isDigit(_ j: Int) -> Bool { j < end && p[j] >= zero && p[j] <= nine }

    mutating func parseNumber(_ pos: SourcePosition) throws(Diagnostic) -> JSONNode {
        let start = i
        let negative = p[i] == minus
        if negative { i += 1 }
        guard isDigit(i) else {
            if i == end { throw endOfFile("expected a digit after '-'") }
            if p[i] == UInt8(ascii: "I") || p[i] == UInt8(ascii: "N") {
                throw error("invalid value '\(token(from: start))': JSON has no NaN or Infinity", at: pos)
            }
            throw error("invalid number '\(token(from: start))': expected a digit after '-'", at: pos)
        }
        // Mantissa digits accumulate into `mantissa` while it stays exact (at most 19 digits).
        var mantissa: UInt64 = 0
        var digits = 0
        if p[i] == zero {
            i += 1
            if isDigit(i) { throw error("invalid number '\(token(from: start))': leading zeros are not allowed", at: pos) }
        } else {
            while isDigit(i) {
                if digits < 19 { mantissa = mantissa &* 10 &+ UInt64(p[i] - zero) }
                digits += 1
                i += 1
            }
        }
        var fractionDigits = 0
        var exponent = 0
        var isInteger = true
        if i < end && p[i] == dot {
            isInteger = false
            i += 1
            guard isDigit(i) else {
                if i == end { throw endOfFile("expected a digit after '.'") }
                throw error("invalid number '\(token(from: start))': expected a digit after '.'", at: pos)
            }
            while isDigit(i) {
                if digits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(p[i] - zero)
                    fractionDigits += 1
                }
                if mantissa != 0 { digits += 1 }
                i += 1
            }
        }
        if i < end && (p[i] | 0x20) == UInt8(ascii: "e") {
            isInteger = false
            i += 1
            var exponentNegative = false
            if i < end && (p[i] == plus || p[i] == minus) {
                exponentNegative = p[i] == minus
                i += 1
            }
            guard isDigit(i) else {
                if i == end { throw endOfFile("expected a digit in the exponent") }
                throw error("invalid number '\(token(from: start))': expected a digit in the exponent", at: pos)
            }
            while isDigit(i) {
                if exponent < 100_000 { exponent = exponent * 10 + Int(p[i] - zero) }
                i += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        if isInteger && digits <= 18 {
            let v = Int(mantissa)
            return JSONNode(.int(negative ? -v : v), at: pos)
        }
        if isInteger && digits == 19 {
            if !negative && mantissa <= UInt64(Int.max) { return JSONNode(.int(Int(mantissa)), at: pos) }
            if negative && mantissa <= UInt64(Int.max) + 1 { return JSONNode(.int(Int(truncatingIfNeeded: 0 &- mantissa)), at: pos) }
        }
        // Clinger's fast path: an exact mantissa below 2^53 and an exact power of ten round once.
        let scale = exponent - fractionDigits
        if digits <= 19 && mantissa < 1 << 53 && scale >= -22 && scale <= 22 {
            var d = Double(mantissa)
            d = scale < 0 ? d / exactPowersOfTen[-scale] : d * exactPowersOfTen[scale]
            return JSONNode(.double(negative ? -d : d), at: pos)
        }
        let text = p.string(start, count: i - start)
        guard let d = Double(text), d.isFinite else { throw error("number \(text) is out of range", at: pos) }
        return JSONNode(.double(d), at: pos)
    }
}
