extension TextEscape {
    /// `s` as HTML text or a double- or single-quoted attribute value: the one escaping for
    /// HTML the host writes from data (`host matrix --format html`). `&`, `<`, `>`, `"` and `'`
    /// become `&amp;`, `&lt;`, `&gt;`, `&quot;` and `&#39;`; control characters HTML does not
    /// allow in a document (C0 other than tab, line feed and carriage return; DEL; C1) and
    /// non-characters U+FFFE and U+FFFF become U+FFFD, so no data can close an element or an
    /// attribute, or smuggle a control character into the page.
    public static func html(_ s: String) -> String {
        var clean = true
        for u in s.utf8 where u == 0x26 || u == 0x3C || u == 0x3E || u == 0x22 || u == 0x27 || u < 0x20 || u >= 0x7F {
            clean = false
            break
        }
        if clean { return s }
        var out = String.UnicodeScalarView()
        for u in s.unicodeScalars {
            switch u {
            case "&": out.append(contentsOf: "&amp;".unicodeScalars)
            case "<": out.append(contentsOf: "&lt;".unicodeScalars)
            case ">": out.append(contentsOf: "&gt;".unicodeScalars)
            case "\"": out.append(contentsOf: "&quot;".unicodeScalars)
            case "'": out.append(contentsOf: "&#39;".unicodeScalars)
            case "\t", "\n", "\r": out.append(u)
            default:
                let v = u.value
                if v < 0x20 || (0x7F...0x9F).contains(v) || v == 0xFFFE || v == 0xFFFF {
                    out.append("\u{FFFD}")
                } else {
                    out.append(u)
                }
            }
        }
        return String(out)
    }
}
