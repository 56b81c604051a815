import OrderedCollections

/// A quick reader for the common shape of a population's JSON line: one object whose members are
/// scalars (`{"name":"u1","tier":"gold","age":31,"beta":false}`), read straight into values with
/// no nodes or positions. It takes only what it can read exactly as `JSONReader` reads it (ASCII
/// keys and strings without escapes, numbers by the same code, literals) and answers nil for
/// anything else — nested values, escapes, non-ASCII text, duplicate keys, a byte-order mark,
/// any syntax error — so the caller falls back to `JSONReader`, which reads it or says where it
/// is wrong. Equal input, equal values: `JSONFlatObjectTests` checks it against `JSONReader`.
public enum JSONFlatObject {
    public static func parse(_ bytes: [UInt8]) -> OrderedDictionary<String, JSONValue>? {
        bytes.withUnsafeBufferPointer { b -> OrderedDictionary<String, JSONValue>? in
            guard let base = b.baseAddress, b.count > 1 else { return nil }
            var parser = JSONParser(base: base, count: b.count, file: "")
            return parser.flatObject()
        }
    }
}

extension JSONParser {
    mutating func flatObject() -> OrderedDictionary<String, JSONValue>? {
        skipWhitespace()
        guard i < end, p[i] == openBrace else { return nil }
        i += 1
        var out = OrderedDictionary<String, JSONValue>()
        out.reserveCapacity(12)
        skipWhitespace()
        if i < end && p[i] == closeBrace {
            i += 1
            skipWhitespace()
            return i == end ? out : nil
        }
        while true {
            skipWhitespace()
            guard let key = plainString() else { return nil }
            skipWhitespace()
            guard i < end, p[i] == colon else { return nil }
            i += 1
            skipWhitespace()
            guard i < end else { return nil }
            let value: JSONValue
            switch p[i] {
            case quote:
                guard let s = plainString() else { return nil }
                value = .string(s)
            case minus, zero...nine:
                guard let n = try? parseNumber(position), !(i < end && isWordByte(p[i])) else { return nil }
                value = n.plain
            case UInt8(ascii: "t"): guard matchLiteral("true") else { return nil }; value = .bool(true)
            case UInt8(ascii: "f"): guard matchLiteral("false") else { return nil }; value = .bool(false)
            case UInt8(ascii: "n"): guard matchLiteral("null") else { return nil }; value = .null
            default: return nil
            }
            guard out.updateValue(value, forKey: key) == nil else { return nil }
            skipWhitespace()
            guard i < end else { return nil }
            if p[i] == comma { i += 1; continue }
            guard p[i] == closeBrace else { return nil }
            i += 1
            skipWhitespace()
            return i == end ? out : nil
        }
    }

    /// A string of printable ASCII without escapes, at `i` (on its opening quote).
    private mutating func plainString() -> String? {
        guard i < end, p[i] == quote else { return nil }
        let start = i + 1
        var j = start
        while j < end {
            let c = p[j]
            if c == quote { break }
            if c == backslash || c < 0x20 || c >= 0x80 { return nil }
            j += 1
        }
        guard j < end else { return nil }
        i = j + 1
        return String(decoding: UnsafeBufferPointer(start: p + start, count: j - start), as: UTF8.self)
    }
}
