#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
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

/// One member of a flat JSON line as byte ranges into the line (`JSONFlatObject.scan`): the
/// key's bytes (between its quotes) and the value's — a string's bytes between its quotes, a
/// number's token as written, or nothing for `true`, `false` and `null` (`kind` says which).
public struct JSONFlatMember: Sendable {
    public enum Kind: UInt8, Sendable { case string = 0x73, number = 0x6E, `true` = 0x74, `false` = 0x66, null = 0x7A }
    public var keyStart: Int32, keyCount: Int32
    public var valueStart: Int32, valueCount: Int32
    public var kind: Kind
}

extension JSONFlatObject {
    /// The members of a line `parse` reads (the same lines: one object of scalars, ASCII keys and
    /// strings without escapes, no duplicate keys), as ranges into the line; false for any line
    /// `parse` declines. Nothing is allocated beyond `members`' growth.
    public static func scan(_ b: UnsafeBufferPointer<UInt8>, into members: inout [JSONFlatMember]) -> Bool {
        members.removeAll(keepingCapacity: true)
        guard let base = b.baseAddress, b.count > 1, b.count < Int(Int32.max) else { return false }
        var parser = JSONParser(base: base, count: b.count, file: "")
        return parser.flatMembers(&members)
    }
}

extension JSONParser {
    mutating func flatMembers(_ out: inout [JSONFlatMember]) -> Bool {
        skipWhitespace()
        guard i < end, p[i] == openBrace else { return false }
        i += 1
        skipWhitespace()
        if i < end && p[i] == closeBrace {
            i += 1
            skipWhitespace()
            return i == end
        }
        while true {
            skipWhitespace()
            guard let key = plainSpan() else { return false }
            skipWhitespace()
            guard i < end, p[i] == colon else { return false }
            i += 1
            skipWhitespace()
            guard i < end else { return false }
            var m = JSONFlatMember(keyStart: Int32(key.start), keyCount: Int32(key.count), valueStart: Int32(i), valueCount: 0, kind: .null)
            switch p[i] {
            case quote:
                guard let s = plainSpan() else { return false }
                m.valueStart = Int32(s.start); m.valueCount = Int32(s.count); m.kind = .string
            case minus, zero...nine:
                let start = i
                guard (try? parseNumber(position)) != nil, !(i < end && isWordByte(p[i])) else { return false }
                m.valueCount = Int32(i - start); m.kind = .number
            case UInt8(ascii: "t"): guard matchLiteral("true") else { return false }; m.kind = .true
            case UInt8(ascii: "f"): guard matchLiteral("false") else { return false }; m.kind = .false
            case UInt8(ascii: "n"): guard matchLiteral("null") else { return false }; m.kind = .null
            default: return false
            }
            // Duplicate keys: `parse` declines them (the full reader says where).
            for o in out where o.keyCount == m.keyCount && memcmp(p + Int(o.keyStart), p + Int(m.keyStart), Int(m.keyCount)) == 0 {
                return false
            }
            out.append(m)
            skipWhitespace()
            guard i < end else { return false }
            if p[i] == comma { i += 1; continue }
            guard p[i] == closeBrace else { return false }
            i += 1
            skipWhitespace()
            return i == end
        }
    }

    /// `plainString`'s span: the bytes between the quotes.
    private mutating func plainSpan() -> (start: Int, count: Int)? {
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
        return (start, j - start)
    }
}
