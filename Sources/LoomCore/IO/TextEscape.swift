/// The one escaping every text sink uses for text that comes from plugins or data (tree lines,
/// props, titles, ids, graph labels, navigation traces, plugin logs, scenario failures,
/// diagnostics): a plugin cannot forge a line or drive the terminal.
///
/// `\n`, `\r`, `\t` print as those two characters; every other C0 and C1 control, DEL, U+2028 and
/// U+2029, and the bidirectional overrides and isolates (U+202A–202E, U+2066–2069) print as
/// `\u{1B}`; stand-in bytes of a file name that is not UTF-8 (`FilePath`) print as `\x{FF}`.
/// Text with none of these is returned as it is.
public enum TextEscape {
    @inline(__always)
    static func needsEscape(_ v: UInt32, keepingNewlines: Bool) -> Bool {
        if v < 0x20 { return !(keepingNewlines && (v == 0x0A || v == 0x09)) }
        if v < 0x7F { return false }
        if v <= 0x9F { return true }
        if v < 0x2028 { return false }
        if v <= 0x2029 || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) { return true }
        return v >= FilePath.byteBase + 0x80 && v <= FilePath.byteBase + 0xFF
    }

    /// Whether `u` prints escaped.
    public static func isEscaped(_ u: Unicode.Scalar) -> Bool { needsEscape(u.value, keepingNewlines: false) }

    /// `s` with every control character escaped (one line, always).
    public static func escaped(_ s: String) -> String { escape(s, keepingNewlines: false) }

    /// `s` with every control character escaped except line feeds and tabs, for text that is
    /// several lines by design (scenario failures with diffs, plugin log lines).
    public static func escapedKeepingNewlines(_ s: String) -> String { escape(s, keepingNewlines: true) }

    static func escape(_ s: String, keepingNewlines: Bool) -> String {
        // Fast path: ASCII printable text (the common case) is returned untouched.
        var clean = true
        for u in s.utf8 where u < 0x20 || u >= 0x7F {
            clean = false
            break
        }
        if clean { return s }
        guard s.unicodeScalars.contains(where: { needsEscape($0.value, keepingNewlines: keepingNewlines) }) else { return s }
        var out = String.UnicodeScalarView()
        for u in s.unicodeScalars {
            let v = u.value
            guard needsEscape(v, keepingNewlines: keepingNewlines) else {
                out.append(u)
                continue
            }
            let text: String
            switch v {
            case 0x0A: text = "\\n"
            case 0x0D: text = "\\r"
            case 0x09: text = "\\t"
            default:
                if v >= FilePath.byteBase {
                    text = "\\x{" + hex(v - FilePath.byteBase, width: 2) + "}"
                } else {
                    text = "\\u{" + hex(v, width: v > 0xFF ? 4 : 2) + "}"
                }
            }
            out.append(contentsOf: text.unicodeScalars)
        }
        return String(out)
    }

    static func hex(_ v: UInt32, width: Int) -> String {
        let s = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }
}
