// Text that goes into an SVG file: XML escaping and numbers written the same way every time.
import Foundation

enum SVGText {
    /// `s` escaped for XML character data and attribute values (`&`, `<`, `>`, `"`, `'`).
    /// Characters XML 1.0 does not allow (C0 controls other than tab, line feed and carriage
    /// return, U+FFFE, U+FFFF) become U+FFFD, so the file always parses.
    static func escaped(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for u in s.unicodeScalars {
            switch u {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out += "&#\(u.value);"
            default:
                if u.value < 0x20 || u.value == 0xFFFE || u.value == 0xFFFF {
                    out.unicodeScalars.append("\u{FFFD}")
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out
    }

    /// A number with at most 3 decimals, no trailing zeros, no `-0` (byte-stable output).
    static func number(_ d: Double) -> String {
        guard d.isFinite else { return "0" }
        let r = (d * 1000).rounded() / 1000
        if r == r.rounded(), abs(r) < 1e15 { return String(Int(r)) }
        var s = String(format: "%.3f", r)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s == "-0" ? "0" : s
    }
}

/// Builds an SVG document line by line; attributes are written in the order given.
struct SVGBuilder {
    private(set) var text = ""
    private var depth = 0

    /// `<name a="v" …` (unclosed), for an element written on one line.
    static func tag(_ name: String, _ attributes: [(String, String)]) -> String {
        var t = "<" + name
        for (k, v) in attributes { t += " \(k)=\"\(SVGText.escaped(v))\"" }
        return t
    }

    /// `<name a="v" …/>` (`close: false`: `<name …>` and one level deeper).
    mutating func element(_ name: String, _ attributes: [(String, String)], close: Bool = true) {
        text += String(repeating: "  ", count: depth) + "<" + name
        for (k, v) in attributes { text += " \(k)=\"\(SVGText.escaped(v))\"" }
        text += close ? "/>\n" : ">\n"
        if !close { depth += 1 }
    }

    /// `<name …>escaped text</name>` on one line.
    mutating func element(_ name: String, _ attributes: [(String, String)], text content: String) {
        text += String(repeating: "  ", count: depth) + "<" + name
        for (k, v) in attributes { text += " \(k)=\"\(SVGText.escaped(v))\"" }
        text += ">" + SVGText.escaped(content) + "</\(name)>\n"
    }

    mutating func end(_ name: String) {
        depth -= 1
        text += String(repeating: "  ", count: depth) + "</\(name)>\n"
    }

    mutating func raw(_ line: String) {
        text += String(repeating: "  ", count: depth) + line + "\n"
    }
}
