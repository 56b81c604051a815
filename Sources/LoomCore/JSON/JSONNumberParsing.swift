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

    /// Reads the number token at `i` with `scanNumber` and says what is wrong where it is not one.
    mutating func parseNumber(_ pos: SourcePosition) throws(Diagnostic) -> JSONNode {
        let start = i
        do {
            return JSONNode(try Self.scanNumber(p, at: &i, end: end), at: pos)
        } catch {
            // `i` is where the scan stopped (an inout argument is written back on a throw): a
            // digit missing there is the end of the file when the input ends there.
            func missing(_ expectation: String) -> Diagnostic {
                i == end ? endOfFile(expectation) : self.error("invalid number '\(token(from: start))': \(expectation)", at: pos)
            }
            switch error {
            case .nanOrInfinity:
                throw self.error("invalid value '\(token(from: start))': JSON has no NaN or Infinity", at: pos)
            case .digitAfterMinus: throw missing("expected a digit after '-'")
            case .leadingZeros:
                throw self.error("invalid number '\(token(from: start))': leading zeros are not allowed", at: pos)
            case .digitAfterDot: throw missing("expected a digit after '.'")
            case .digitInExponent: throw missing("expected a digit in the exponent")
            case .outOfRange:
                throw self.error("number \(p.string(start, count: i - start)) is out of range", at: pos)
            }
        }
    }

    /// What is wrong with a number token (`scanNumber`); `parseNumber` words it.
    enum NumberFailure: Error { case digitAfterMinus, nanOrInfinity, leadingZeros, digitAfterDot, digitInExponent, outOfRange }

    /// The JSON number token at `i` in `p[..<end]` (`i` at its first byte, a `-` or a digit),
    /// leaving `i` after it (or where it goes wrong): the one number code of the reader, static
    /// so that `JSONFlatObject` reads a line's tokens with it without making a parser (whose
    /// scratch stacks are allocated). Integers of at most 18 digits, and 19-digit ones in range,
    /// are `.int`; any other number a double, exact: Clinger's fast path when the mantissa and
    /// the power of ten are exact, otherwise the standard library's correctly rounded reading;
    /// a double that is not finite is out of range.
    @inline(__always)
    static func scanNumber(_ p: ByteView, at i: inout Int, end: Int) throws(NumberFailure) -> JSONNode.Kind {
        @inline(__always) func isDigit(_ j: Int) -> Bool { j < end && p[j] >= zero && p[j] <= nine }
        let start = i
        let negative = p[i] == minus
        if negative { i += 1 }
        guard isDigit(i) else {
            if i < end && (p[i] == UInt8(ascii: "I") || p[i] == UInt8(ascii: "N")) { throw .nanOrInfinity }
            throw .digitAfterMinus
        }
        // Mantissa digits accumulate into `mantissa` while it stays exact (at most 19 digits).
        var mantissa: UInt64 = 0
        var digits = 0
        if p[i] == zero {
            i += 1
            if isDigit(i) { throw .leadingZeros }
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
            guard isDigit(i) else { throw .digitAfterDot }
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
            guard isDigit(i) else { throw .digitInExponent }
            while isDigit(i) {
                if exponent < 100_000 { exponent = exponent * 10 + Int(p[i] - zero) }
                i += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        if isInteger && digits <= 18 {
            let v = Int(mantissa)
            return .int(negative ? -v : v)
        }
        if isInteger && digits == 19 {
            if !negative && mantissa <= UInt64(Int.max) { return .int(Int(mantissa)) }
            if negative && mantissa <= UInt64(Int.max) + 1 { return .int(Int(truncatingIfNeeded: 0 &- mantissa)) }
        }
        // Clinger's fast path: an exact mantissa below 2^53 and an exact power of ten round once.
        let scale = exponent - fractionDigits
        if digits <= 19 && mantissa < 1 << 53 && scale >= -22 && scale <= 22 {
            var d = Double(mantissa)
            d = scale < 0 ? d / exactPowersOfTen[-scale] : d * exactPowersOfTen[scale]
            return .double(negative ? -d : d)
        }
        let text = p.string(start, count: i - start)
        guard let d = Double(text), d.isFinite else { throw .outOfRange }
        return .double(d)
    }
}
