/// Bounds on every conversion between Lua, JSON and Swift values (props, options, check
/// results, logs, user attributes, `--context` values, screen meta, rule and scenario
/// arguments). Past a bound the conversion stops with a located error; nothing traps.
public enum Limits {
    /// Arrays / objects / tables nested inside each other: `{}` is 1 level, `{"a": {}}` 2.
    public static let maxNesting = 64
    /// Values (scalars and containers) produced by one conversion. A table reached several
    /// times (`t = {a = s, b = s}`) counts each time, so shared substructures cannot amplify.
    public static let maxNodes = 1_000_000
    /// Bytes of strings (keys and values) produced by one conversion, counted the same way.
    public static let maxStringBytes = 64 << 20  // 64 MiB

    /// Messages kept from one `check` result (a list of messages), and bytes kept of each.
    public static let maxMessages = 100
    public static let maxMessageBytes = 4096

    /// "nested deeper than 64 levels"
    public static var nestingMessage: String { "nested deeper than \(maxNesting) levels" }
}

extension JSONNode {
    /// The first container (in document order) that sits deeper than `limit` levels, where the
    /// node itself, when a container, is level 1. Nil when the value is within the limit.
    /// Iterative: any depth the reader accepts is walked without recursion.
    public func firstTooDeep(limit: Int = Limits.maxNesting) -> JSONNode? {
        var stack: [(JSONNode, Int)] = [(self, 1)]
        while let (n, level) = stack.popLast() {
            switch n.kind {
            case .array(let a):
                if level > limit { return n }
                for x in a.reversed() where x.isContainer { stack.append((x, level + 1)) }
            case .object(let o):
                if level > limit { return n }
                for m in o.members.reversed() where m.value.isContainer { stack.append((m.value, level + 1)) }
            default: break
            }
        }
        return nil
    }

    var isContainer: Bool {
        switch kind {
        case .array, .object: return true
        default: return false
        }
    }
}

extension JSONValue {
    /// Whether the value nests containers deeper than `limit` levels (iterative).
    public func nestsDeeper(than limit: Int = Limits.maxNesting) -> Bool {
        var stack: [(JSONValue, Int)] = [(self, 1)]
        while let (v, level) = stack.popLast() {
            switch v {
            case .array(let a):
                if level > limit { return true }
                for x in a { if case .array = x { stack.append((x, level + 1)) } else if case .object = x { stack.append((x, level + 1)) } }
            case .object(let o):
                if level > limit { return true }
                for x in o.values { if case .array = x { stack.append((x, level + 1)) } else if case .object = x { stack.append((x, level + 1)) } }
            default: break
            }
        }
        return false
    }
}

/// Text for JSON names (keys) in messages.
public enum JSONKeyText {
    /// The key for a message: quoted, control characters escaped, cut after 80 characters.
    public static func quoted(_ key: String) -> String {
        var out = "'"
        var n = 0
        for s in key.unicodeScalars {
            if n == 80 {
                out += "…"
                break
            }
            n += 1
            if s.value < 0x20 || s.value == 0x7F || (0x80..<0xA0).contains(s.value) || s == "\u{2028}" || s == "\u{2029}" {
                out += "\\u{\(String(s.value, radix: 16, uppercase: true))}"
            } else {
                out.unicodeScalars.append(s)
            }
        }
        return out + "'"
    }

    /// `'é' (U+0065 U+0301)`: the key and its code points (the first 16).
    public static func withCodePoints(_ key: String) -> String {
        let scalars = Array(key.unicodeScalars)
        var codes = scalars.prefix(16).map { s -> String in
            let h = String(s.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - h.count)) + h
        }.joined(separator: " ")
        if scalars.count > 16 { codes += " …" }
        return "\(quoted(key)) (\(codes))"
    }

    /// The message for two names that differ as bytes (so JSON and Lua keep both) but that
    /// Swift strings compare equal (canonical equivalence), so one object cannot hold both.
    public static func equivalentKeysMessage(_ first: String, _ second: String) -> String {
        "keys \(withCodePoints(first)) and \(withCodePoints(second)) are distinct JSON names that Swift compares equal; Loom cannot keep both — rename one"
    }

    /// Whether two keys are the same JSON name (same UTF-8 bytes, RFC 8259 §8.3).
    @inline(__always)
    public static func sameBytes(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && a.utf8.elementsEqual(b.utf8)
    }
}
