import OrderedCollections

extension JSONValue {
    /// Deterministic JSON text: keys in stored order, RFC 8259 string escaping (non-ASCII kept as
    /// is, "/" not escaped), integers plainly, doubles in shortest round-trip form (integral ones
    /// within ±2^53 without a fraction, non-finite ones as `null`).
    ///
    /// Pretty form puts one member per line indented by `indent`, writes `"key": value` and empty
    /// containers as `{}` / `[]`; compact form has no whitespace at all.
    public func serialized(pretty: Bool = true, indent: String = "  ") -> String {
        var writer = JSONTextWriter(pretty: pretty, indent: Array(indent.utf8))
        writer.write(self, level: 0)
        return String(decoding: writer.out, as: UTF8.self)
    }
}

extension JSONNode {
    /// `plain.serialized(pretty:indent:)`.
    public func serialized(pretty: Bool = true, indent: String = "  ") -> String {
        plain.serialized(pretty: pretty, indent: indent)
    }
}

extension JSONValue {
    /// JSON text for one double: shortest round-trip digits, no `.0` on integral values within
    /// ±2^53, `null` for NaN and infinities (JSON cannot express them).
    public static func numberText(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        if d == d.rounded(), abs(d) <= 9_007_199_254_740_992 { return String(Int(d)) }
        // Swift prints e.g. "0.1", "1e-05", "1.5e+300": all valid JSON numbers.
        var s = d.description
        if s.hasSuffix(".0") { s.removeLast(2) }
        return s
    }
}

/// The JSON text writer behind `serialized`; TreeOutput writes a resolved tree with it member by
/// member (`member`, `close`), with no `JSONValue` tree made in between.
struct JSONTextWriter {
    let pretty: Bool
    let indent: [UInt8]
    /// With an indent of spaces only (the usual "  "): spaces for 32 levels, so that a line's
    /// indent is one copy of a slice of it.
    let spaces: [UInt8]?
    var out: [UInt8] = []

    init(pretty: Bool, indent: [UInt8]) {
        self.pretty = pretty
        self.indent = indent
        spaces = indent.allSatisfy { $0 == 0x20 } ? [UInt8](repeating: 0x20, count: indent.count * 32) : nil
        out.reserveCapacity(1024)
    }

    mutating func write(_ value: JSONValue, level: Int) {
        switch value {
        case .null: append("null")
        case .bool(let b): append(b ? "true" : "false")
        case .int(let i): append(String(i))
        case .double(let d): append(JSONValue.numberText(d))
        case .string(let s): writeString(s)
        case .array(let items): array(items, level: level) { $0.write($1, level: $2) }
        case .object(let members):
            if members.isEmpty { return append("{}") }
            out.append(UInt8(ascii: "{"))
            for (n, (key, item)) in members.enumerated() {
                if n > 0 { out.append(UInt8(ascii: ",")) }
                newline(level + 1)
                writeString(key)
                out.append(UInt8(ascii: ":"))
                if pretty { out.append(UInt8(ascii: " ")) }
                write(item, level: level + 1)
            }
            newline(level)
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Starts a member of the object being written at `level` (opened with `{`): the comma
    /// unless `first`, the line, the key and the colon; its value is written next.
    mutating func member(_ key: String, first: inout Bool, level: Int) {
        if !first { out.append(UInt8(ascii: ",")) }
        first = false
        newline(level + 1)
        writeString(key)
        out.append(UInt8(ascii: ":"))
        if pretty { out.append(UInt8(ascii: " ")) }
    }

    /// `elements` as an array at `level` (`[]` when there are none), each written by `element`
    /// one level deeper.
    @inline(__always)
    mutating func array<T>(_ elements: [T], level: Int, _ element: (inout JSONTextWriter, T, Int) -> Void) {
        out.append(UInt8(ascii: "["))
        for (k, e) in elements.enumerated() {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            newline(level + 1)
            element(&self, e, level + 1)
        }
        close(UInt8(ascii: "]"), empty: elements.isEmpty, level: level)
    }

    /// Closes the object or array at `level` with `byte`: on a line of its own unless it is empty.
    mutating func close(_ byte: UInt8, empty: Bool, level: Int) {
        if !empty { newline(level) }
        out.append(byte)
    }

    /// A string's UTF-8 in one copy (`ByteView`: a short string's bytes are not contiguous, and
    /// appending its `utf8` would go byte by byte).
    mutating func append(_ s: String) {
        ByteView.with(s) { view, n in view?.append(0, count: n, to: &out) }
    }

    mutating func newline(_ level: Int) {
        guard pretty else { return }
        out.append(0x0A)
        if let spaces, indent.count * level <= spaces.count {
            out.append(contentsOf: spaces[0..<indent.count * level])
        } else {
            for _ in 0..<level { out.append(contentsOf: indent) }
        }
    }

    /// Characters a terminal may act on beyond C0 controls: DEL, C1 controls, the line and
    /// paragraph separators and the bidi overrides. Written as `\uXXXX` (valid JSON either way),
    /// so JSON output printed to a terminal cannot drive it or reorder what is shown.
    static func needsEscape(_ v: UInt32) -> Bool {
        v == 0x7F || (0x80...0x9F).contains(v) || v == 0x2028 || v == 0x2029
            || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v)
    }

    mutating func writeString(_ s: String) {
        // Most strings (ids, names, keys) hold nothing to escape: one scan, then their bytes in
        // one append (a copy of a native string's UTF-8) instead of a switch per byte. The scan
        // stops at the first byte that may need care: a control, `"`, `\`, DEL, or a lead byte
        // (C2, E2) of the characters `needsEscape` names.
        let plain = ByteView.with(s) { view, n -> Bool in
            guard let view else {
                out.append(UInt8(ascii: "\""))
                out.append(UInt8(ascii: "\""))
                return true
            }
            var i = 0
            while i < n {
                let c = view[i]
                if c < 0x20 || c == 0x22 || c == 0x5C || c == 0x7F || c == 0xC2 || c == 0xE2 { return false }
                i += 1
            }
            out.append(UInt8(ascii: "\""))
            view.append(0, count: n, to: &out)
            out.append(UInt8(ascii: "\""))
            return true
        }
        if plain { return }
        // Only strings holding DEL or a lead byte of those characters (C2, E2) take the slow path.
        if s.utf8.contains(where: { $0 == 0x7F || $0 == 0xC2 || $0 == 0xE2 }),
           s.unicodeScalars.contains(where: { Self.needsEscape($0.value) }) {
            return writeEscapingScalars(s)
        }
        out.append(UInt8(ascii: "\""))
        for c in s.utf8 {
            switch c {
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\\"): append("\\\\")
            case 0x0A: append("\\n")
            case 0x0D: append("\\r")
            case 0x09: append("\\t")
            case 0x08: append("\\b")
            case 0x0C: append("\\f")
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: "\\u00".utf8)
                out.append(hex[Int(c >> 4)])
                out.append(hex[Int(c & 15)])
            default: out.append(c)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private mutating func writeEscapingScalars(_ s: String) {
        let hex = Array("0123456789abcdef".utf8)
        var plain = ""
        out.append(UInt8(ascii: "\""))
        func flush(_ w: inout JSONTextWriter) {
            guard !plain.isEmpty else { return }
            var inner = JSONTextWriter(pretty: false, indent: [])
            inner.writeString(plain)
            w.out.append(contentsOf: inner.out.dropFirst().dropLast())
            plain = ""
        }
        for u in s.unicodeScalars {
            guard Self.needsEscape(u.value) else {
                plain.unicodeScalars.append(u)
                continue
            }
            flush(&self)
            out.append(contentsOf: "\\u".utf8)
            for shift in stride(from: 12, through: 0, by: -4) { out.append(hex[Int((u.value >> UInt32(shift)) & 15)]) }
        }
        flush(&self)
        out.append(UInt8(ascii: "\""))
    }
}
