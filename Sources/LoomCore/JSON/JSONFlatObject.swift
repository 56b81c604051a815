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
        ByteView.with(bytes) { view, count -> OrderedDictionary<String, JSONValue>? in
            guard let base = view, count > 1, count < Int(Int32.max) else { return nil }
            var scanner = FlatScanner(p: base, end: count, plainNumbersOnly: false)
            var members: [JSONFlatMember] = []
            guard scanner.members(&members) else { return nil }
            return values(base, members)
        }
    }

    /// The members a scan of the line at `base` found, as values (what `parse` answers for
    /// the line); nil when a number token is not one (the reader's number code says why).
    static func values(_ base: ByteView, _ members: [JSONFlatMember]) -> OrderedDictionary<String, JSONValue>? {
        func text(_ s: Int32, _ n: Int32) -> String { base.string(Int(s), count: Int(n)) }
        // Keys and values in order, made into the dictionary at once without looking each key
        // up (a small `OrderedDictionary` finds a key by comparing it with every key before it:
        // about 330 instructions a member). The scan declined a line with two members of the same
        // key bytes, and its keys are ASCII, where equal bytes and equal strings are the same.
        var keys: [String] = [], values: [JSONValue] = []
        keys.reserveCapacity(members.count)
        values.reserveCapacity(members.count)
        for m in members {
            let value: JSONValue
            switch m.kind {
            case .string: value = .string(text(m.valueStart, m.valueCount))
            case .number:
                guard let n = number(base, Int(m.valueStart), Int(m.valueCount)) else { return nil }
                value = n
            case .true: value = .bool(true)
            case .false: value = .bool(false)
            case .null: value = .null
            }
            keys.append(text(m.keyStart, m.keyCount))
            values.append(value)
        }
        return OrderedDictionary(uncheckedUniqueKeys: keys, values: values)
    }

    /// A number token's value. An integer token (an optional `-`, then `0` or at most 18 digits
    /// not starting with `0`) is read here, as the reader's number code reads it (`.int`, `-0`
    /// as 0: `JSONNumberParsing`), without making a parser (which allocates its scratch stacks:
    /// a population's attributes are mostly such integers); any other token by the reader's
    /// own number code (`JSONParser.scanNumber`: exact, and its range check, with no parser
    /// made); nil when it is not a number.
    @inline(__always)
    static func number(_ base: ByteView, _ start: Int, _ count: Int) -> JSONValue? {
        let negative = count > 0 && base[start] == 0x2D  // -
        let first = negative ? start + 1 : start, digits = start + count - first
        if digits >= 1 && digits <= 18 && (digits == 1 || base[first] != 0x30) {
            var v = 0, k = first
            while k < start + count {
                let d = base[k] &- 0x30
                guard d <= 9 else { break }
                v = v &* 10 &+ Int(d)
                k += 1
            }
            if k == start + count { return .int(negative ? -v : v) }
        }
        var i = start
        guard let n = try? JSONParser.scanNumber(base, at: &i, end: start + count), i == start + count else { return nil }
        switch n {
        case .int(let v): return .int(v)
        case .double(let d): return .double(d)
        default: return nil  // scanNumber answers only these two
        }
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
    /// The members of a line as ranges into it, for the lines `parse` reads whose numbers are
    /// plain (`-`, at most 18 integer digits, at most 17 after a point, no exponent: never out of
    /// range, read exactly as `JSONReader` reads them); false for any other line. A subset of
    /// what `parse` takes (`JSONFlatObjectTests`, FuzzJSON check it), read with no allocation
    /// beyond `members`' growth.
    /// (The public entry point over a caller's buffer is in Unsafe.swift.)
    static func scan(_ base: ByteView, count: Int, into members: inout [JSONFlatMember]) -> Bool {
        // Emptied once per line (the entry point above does not empty it again), and only when
        // there is something to empty: `removeAll(keepingCapacity:)` is not free per record.
        if !members.isEmpty { members.removeAll(keepingCapacity: true) }
        guard count > 1, count < Int(Int32.max) else { return false }
        var s = FlatScanner(p: base, end: count, plainNumbersOnly: true)
        return s.members(&members)
    }
}

extension JSONFlatObject {
    /// What `scan` reads from a line, as values (numbers read by `JSONReader` from their tokens),
    /// or nil where it declines: for checking `scan` against `parse` (tests, the fuzzer).
    public static func scannedValues(_ bytes: [UInt8]) -> [(key: String, value: JSONValue)]? {
        ByteView.with(bytes) { view, count -> [(key: String, value: JSONValue)]? in
            var members: [JSONFlatMember] = []
            guard let base = view, scan(base, count: count, into: &members) else { return nil }
            return members.map { m in
                func text(_ s: Int32, _ n: Int32) -> String { base.string(Int(s), count: Int(n)) }
                let value: JSONValue
                switch m.kind {
                case .string: value = .string(text(m.valueStart, m.valueCount))
                case .number: value = JSONReader.parseValue(text(m.valueStart, m.valueCount)) ?? .null
                case .true: value = .bool(true)
                case .false: value = .bool(false)
                case .null: value = .null
                }
                return (text(m.keyStart, m.keyCount), value)
            }
        }
    }
}

/// `JSONFlatObject`'s reader of a flat line: bytes and a position, nothing else (no
/// `JSONParser`, whose scratch stacks would be made for every line). `plainNumbersOnly`: `scan`'s
/// subset of numbers; otherwise any JSON number token (`parse` then reads it with the reader's
/// own number code).
private struct FlatScanner {
    let p: ByteView
    let end: Int
    let plainNumbersOnly: Bool
    var i = 0

    @inline(__always)
    mutating func skipWhitespace() {
        while i < end {
            let c = p[i]
            guard c == 0x20 || c == 0x09 || c == 0x0D || c == 0x0A else { return }
            i += 1
        }
    }

    mutating func members(_ out: inout [JSONFlatMember]) -> Bool {
        skipWhitespace()
        guard i < end, p[i] == 0x7B else { return false }  // {
        i += 1
        skipWhitespace()
        if i < end && p[i] == 0x7D {  // }
            i += 1
            skipWhitespace()
            return i == end
        }
        var seen: UInt64 = 0
        while true {
            skipWhitespace()
            guard let key = plainSpan() else { return false }
            skipWhitespace()
            guard i < end, p[i] == 0x3A else { return false }  // :
            i += 1
            skipWhitespace()
            guard i < end else { return false }
            var m = JSONFlatMember(keyStart: Int32(key.start), keyCount: Int32(key.count), valueStart: Int32(i), valueCount: 0, kind: .null)
            switch p[i] {
            case 0x22:
                guard let s = plainSpan() else { return false }
                m.valueStart = Int32(s.start); m.valueCount = Int32(s.count); m.kind = .string
            case 0x2D, 0x30...0x39:
                guard let n = plainNumbersOnly ? plainNumber() : number() else { return false }
                m.valueCount = Int32(n); m.kind = .number
            case 0x74: guard literal("true") else { return false }; m.kind = .true
            case 0x66: guard literal("false") else { return false }; m.kind = .false
            case 0x6E: guard literal("null") else { return false }; m.kind = .null
            default: return false
            }
            // Duplicate keys: `parse` declines them (the full reader says where). A key is compared
            // with the earlier ones only when one of them had its length, first and last byte (one
            // bit of `seen` for each such triple: equal keys always share it).
            let bit: UInt64 = key.count == 0 ? 1 : 1 << UInt64((key.count &* 7 &+ Int(p[key.start]) &+ Int(p[key.start + key.count - 1]) &* 3) & 63)
            if seen & bit != 0 {
                for o in out where o.keyCount == m.keyCount && p.equal(Int(o.keyStart), Int(m.keyStart), count: Int(m.keyCount)) {
                    return false
                }
            }
            seen |= bit
            out.append(m)
            skipWhitespace()
            guard i < end else { return false }
            if p[i] == 0x2C { i += 1; continue }  // ,
            guard p[i] == 0x7D else { return false }
            i += 1
            skipWhitespace()
            return i == end
        }
    }

    /// A string of printable ASCII without escapes, at its opening quote: the
    /// bytes between the quotes.
    @inline(__always)
    mutating func plainSpan() -> (start: Int, count: Int)? {
        guard i < end, p[i] == 0x22 else { return nil }
        let start = i + 1
        var j = start
        while j < end {
            // Eight plain bytes at a time; the byte loop takes the first other one.
            while end - j >= 8 {
                let n = StringScan.plainBytes(p.word(at: j))
                j += n
                if n < 8 { break }
            }
            guard j < end else { break }
            let c = p[j]
            if c == 0x22 { break }
            if c == 0x5C || c < 0x20 || c >= 0x80 { return nil }
            j += 1
        }
        guard j < end else { return nil }
        i = j + 1
        return (start, j - start)
    }

    @inline(__always)
    func digit(_ j: Int) -> Bool { j < end && p[j] >= 0x30 && p[j] <= 0x39 }

    /// A plain number's length: `-?(0|[1-9][0-9]{0,17})(\.[0-9]{1,17})?` not followed by a
    /// letter, digit, `_`, `.`, `e` or `+`/`-` (anything longer or with an exponent: nil).
    mutating func plainNumber() -> Int? {
        let start = i
        var j = i
        if p[j] == 0x2D { j += 1 }
        guard digit(j) else { return nil }
        let intStart = j
        if p[j] == 0x30 {
            j += 1
        } else {
            while digit(j) { j += 1 }
        }
        guard j - intStart <= 18 else { return nil }
        if j < end && p[j] == 0x2E {
            j += 1
            let f = j
            while digit(j) { j += 1 }
            guard j > f, j - f <= 17 else { return nil }
        }
        if j < end {
            let c = p[j]
            if (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A || digit(j) || c == 0x5F || c == 0x2E || c == 0x2B || c == 0x2D { return nil }
        }
        i = j
        return j - start
    }

    /// Any JSON number token's length, `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, not
    /// followed by a letter, digit or `_`: what `JSONParser.parseNumber` reads before its range
    /// check (`parse` makes that check).
    mutating func number() -> Int? {
        let start = i
        var j = i
        if p[j] == 0x2D { j += 1 }
        guard digit(j) else { return nil }
        if p[j] == 0x30 {
            j += 1
        } else {
            while digit(j) { j += 1 }
        }
        if j < end && p[j] == 0x2E {
            j += 1
            guard digit(j) else { return nil }
            while digit(j) { j += 1 }
        }
        if j < end && (p[j] | 0x20) == 0x65 {
            j += 1
            if j < end && (p[j] == 0x2B || p[j] == 0x2D) { j += 1 }
            guard digit(j) else { return nil }
            while digit(j) { j += 1 }
        }
        if j < end {
            let c = p[j]
            if (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A || digit(j) || c == 0x5F { return nil }
        }
        i = j
        return j - start
    }

    mutating func literal(_ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        guard end - i >= n, p.matches(word, at: i) else { return false }
        if i + n < end {
            let c = p[i + n]
            if (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A || (c >= 0x30 && c <= 0x39) || c == 0x5F { return false }
        }
        i += n
        return true
    }
}
