/// The string formats argument types read: SemVer versions, ISO-8601 date-times, decimals.

/// SemVer 2.0 versions as the targeting rules read them (a leading "v", MAJOR[.MINOR[.PATCH]],
/// pre-release and build identifiers): why a string is not one.
public enum SemanticVersion {
    /// nil for a version, else the reason it is not one.
    public static func problem(_ s: String) -> String? {
        var rest = Substring(s)
        if rest.first == "v" || rest.first == "V" { rest = rest.dropFirst() }
        func ident(_ id: Substring) -> Bool {
            !id.isEmpty && id.unicodeScalars.allSatisfy { ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "-" }
        }
        if let plus = rest.firstIndex(of: "+") {
            let build = rest[rest.index(after: plus)...]
            rest = rest[..<plus]
            if build.isEmpty { return "empty build metadata" }
            for id in build.split(separator: ".", omittingEmptySubsequences: false) where !ident(id) {
                return "invalid build identifier '\(id)'"
            }
        }
        if let dash = rest.firstIndex(of: "-") {
            let pre = rest[rest.index(after: dash)...]
            rest = rest[..<dash]
            if pre.isEmpty { return "empty pre-release" }
            for id in pre.split(separator: ".", omittingEmptySubsequences: false) {
                if !ident(id) { return "invalid pre-release identifier '\(id)'" }
                if id.allSatisfy(\.isASCIIDigit), id.count > 1, id.first == "0" {
                    return "numeric pre-release identifier '\(id)' has a leading zero"
                }
            }
        }
        let core = rest.split(separator: ".", omittingEmptySubsequences: false)
        if core.count < 1 || core.count > 3 { return "expected MAJOR[.MINOR[.PATCH]]" }
        for c in core {
            if c.isEmpty || !c.allSatisfy(\.isASCIIDigit) { return "'\(c)' is not a number" }
            if c.count > 1 && c.first == "0" { return "'\(c)' has a leading zero" }
        }
        return nil
    }
}

/// ISO-8601 / RFC 3339 dates and date-times as the targeting rules read them
/// (Plugins/targeting/iso8601.lua): why a string is not one.
public enum ISODateTime {
    public static func problem(_ s: String) -> String? {
        let c = Array(s.utf8)
        func digits(_ from: Int, _ n: Int) -> Int? {
            guard from + n <= c.count else { return nil }
            var v = 0
            for i in from..<(from + n) {
                guard c[i] >= 48, c[i] <= 57 else { return nil }
                v = v * 10 + Int(c[i] - 48)
            }
            return v
        }
        guard let y = digits(0, 4), c.count >= 10, c[4] == 45, let mo = digits(5, 2), c[7] == 45, let d = digits(8, 2) else {
            return "expected YYYY-MM-DD"
        }
        if mo < 1 || mo > 12 { return "month must be 01-12" }
        let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1]
        if d < 1 || d > days {
            return "day must be 01-\(days) in \(String(format: "%04d-%02d", y, mo))"
        }
        guard c.count > 10 else { return nil }
        guard c[10] == 84 || c[10] == 116 || c[10] == 32 else { return "expected 'T' between date and time" }
        guard let h = digits(11, 2), c.count > 13, c[13] == 58, let mi = digits(14, 2) else { return "expected hh:mm after the date" }
        var i = 16
        var sec = 0
        if i < c.count, c[i] == 58, let ss = digits(i + 1, 2) {
            sec = ss
            i += 3
            if i < c.count, c[i] == 46 || c[i] == 44 {
                var j = i + 1
                while j < c.count, c[j] >= 48, c[j] <= 57 { j += 1 }
                if j == i + 1 { return "expected digits after the decimal point" }
                i = j
            }
        }
        if h > 23 { return "hour must be 00-23" }
        if mi > 59 { return "minute must be 00-59" }
        if sec > 59 { return "second must be 00-59" }
        let tail = Array(c[i...])
        if tail.isEmpty || tail == [90] || tail == [122] { return nil }
        guard tail[0] == 43 || tail[0] == 45 else { return "expected 'Z' or an offset like +02:00 after the time" }
        let t = Array(tail.dropFirst())
        func two(_ a: ArraySlice<UInt8>) -> Int? {
            guard a.count == 2, a.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
            return Int(a[a.startIndex] - 48) * 10 + Int(a[a.startIndex + 1] - 48)
        }
        var oh: Int?, om: Int?
        if t.count == 5, t[2] == 58 { oh = two(t[0..<2]); om = two(t[3..<5]) } else if t.count == 4 { oh = two(t[0..<2]); om = two(t[2..<4]) } else if t.count == 2 { oh = two(t[0..<2]); om = 0 }
        guard let oh, let om else { return "expected 'Z' or an offset like +02:00 after the time" }
        if oh > 23 { return "offset hour must be 00-23" }
        if om > 59 { return "offset minute must be 00-59" }
        return nil
    }
}

/// Calendar dates "YYYY-MM-DD" (no time): why a string is not one.
public enum CalendarDate {
    public static func problem(_ s: String) -> String? {
        guard s.utf8.count == 10 else {
            if s.utf8.count > 10, ISODateTime.problem(String(s.prefix(10))) == nil { return "a date without a time, like \"2025-01-01\"" }
            return ISODateTime.problem(s) ?? "expected YYYY-MM-DD"
        }
        return ISODateTime.problem(s)
    }

    /// (year, month, day) of a valid date.
    public static func parts(_ s: String) -> (Int, Int, Int)? {
        guard problem(s) == nil else { return nil }
        let p = s.split(separator: "-").compactMap { Int($0) }
        return p.count == 3 ? (p[0], p[1], p[2]) : nil
    }
}

/// Wall-clock times of day "hh:mm", 00:00 to 23:59: why a string is not one.
public enum ClockTime {
    public static func problem(_ s: String) -> String? {
        let c = Array(s.utf8)
        guard c.count == 5, c[2] == 58, [c[0], c[1], c[3], c[4]].allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
            return "expected hh:mm, like \"09:30\""
        }
        let h = Int(c[0] - 48) * 10 + Int(c[1] - 48), m = Int(c[3] - 48) * 10 + Int(c[4] - 48)
        if h > 23 { return "hour must be 00-23" }
        if m > 59 { return "minute must be 00-59" }
        return nil
    }
}

/// Decimal numbers written as strings, as the targeting rules compare them.
public enum DecimalString {
    /// A decimal number written as a string: "5", "-2.5", "1e3" (no hex, no spaces, no inf/nan).
    public static func isValid(_ s: String) -> Bool {
        var c = Substring(s)
        if c.first == "+" || c.first == "-" { c = c.dropFirst() }
        var mantissa = c
        var exponent: Substring?
        if let e = c.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            mantissa = c[..<e]
            exponent = c[c.index(after: e)...]
        }
        let parts = mantissa.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard !mantissa.isEmpty, parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }) else { return false }
        if parts.count == 2 {
            // "5.", "5.2" and ".5" (not "." alone); an exponent needs digits before it.
            if parts[0].isEmpty && parts[1].isEmpty { return false }
            if exponent != nil && parts[0].isEmpty { return false }
        }
        if var e = exponent {
            if e.first == "+" || e.first == "-" { e = e.dropFirst() }
            guard !e.isEmpty, e.allSatisfy(\.isASCIIDigit) else { return false }
        }
        return true
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
