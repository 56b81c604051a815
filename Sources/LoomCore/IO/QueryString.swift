/// A request target's query parameters, as `host serve` reads them (`?profile=gold&device=…`):
/// split at `&`, each at its first `=`; a name as written, a value with its `%XX` sequences
/// decoded and the bytes read as UTF-8 (an invalid sequence repaired to U+FFFD), or as written
/// when a `%` is not followed by two hex digits; a parameter without `=` has the value "". A
/// later parameter of the same name wins. (`+` is not a space: the preview page and apps encode
/// spaces as `%20`.) Written by hand: Foundation's `URLComponents` refuses a whole query that
/// holds one bad escape, and its `removingPercentEncoding` refuses invalid UTF-8, where a
/// server must read what it can and say what it could not use (an unknown profile, 422).
public enum QueryString {
    public static func parameters(of target: String) -> [String: String] {
        // Split at the bytes `?`, `&` and `=` (not at characters: a combining mark after one
        // would join it into another character).
        let u = target.utf8
        guard let q = u.firstIndex(of: UInt8(ascii: "?")) else { return [:] }
        var out: [String: String] = [:]
        for pair in u[u.index(after: q)...].split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false) {
            guard let eq = pair.firstIndex(of: UInt8(ascii: "=")) else {
                out[String(Substring(pair))] = ""
                continue
            }
            let value = Substring(pair[pair.index(after: eq)...])
            out[String(Substring(pair[..<eq]))] = percentDecoded(value) ?? String(value)
        }
        return out
    }

    /// A request target's path: the bytes before its first `?`.
    public static func path(of target: String) -> Substring {
        Substring(target.utf8.prefix { $0 != UInt8(ascii: "?") })
    }

    /// A path's segments between `/`, empty ones left out (`/v1//screens/home/` is
    /// `["v1", "screens", "home"]`).
    public static func segments(of path: Substring) -> [Substring] {
        // One array made (a split and a map made two: a request's route reads this once).
        let bytes = path.utf8
        var out: [Substring] = []
        out.reserveCapacity(4)
        var start = bytes.startIndex, i = start
        while i != bytes.endIndex {
            if bytes[i] == UInt8(ascii: "/") {
                if start != i { out.append(Substring(bytes[start..<i])) }
                start = bytes.index(after: i)
            }
            i = bytes.index(after: i)
        }
        if start != bytes.endIndex { out.append(Substring(bytes[start..<bytes.endIndex])) }
        return out
    }

    /// `%XX` sequences decoded, the bytes read as UTF-8 (an invalid sequence repaired); nil for a
    /// `%` not followed by two hex digits.
    public static func percentDecoded(_ s: Substring) -> String? {
        guard s.utf8.contains(UInt8(ascii: "%")) else { return String(s) }
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count)
        var it = s.utf8.makeIterator()
        func hex(_ c: UInt8?) -> UInt8? {
            guard let c else { return nil }
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        while let c = it.next() {
            if c == UInt8(ascii: "%") {
                guard let h = hex(it.next()), let l = hex(it.next()) else { return nil }
                out.append(h << 4 | l)
            } else {
                out.append(c)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
