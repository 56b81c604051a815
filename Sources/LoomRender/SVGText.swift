// Text that goes into an SVG file: XML escaping and numbers written the same way every time.
import Foundation
import LoomCore

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

    /// A canvas size in pixels (points × scale, rounded), refused like `number` when it is not
    /// finite or beyond `maxMagnitude` (it would not fit an Int, or any screen).
    static func pixels(_ d: Double) throws(SVGNumberError) -> Int {
        guard d.isFinite, abs(d) <= maxMagnitude else { throw SVGNumberError(value: d) }
        return Int(d.rounded())
    }

    /// The largest magnitude written to SVG: far beyond any screen (renderers such as cairo
    /// cannot place coordinates much past 8 million), and small enough that every number is
    /// written as digits.
    static let maxMagnitude = 1e9

    /// A number with at most 3 decimals, no trailing zeros, no `-0` (byte-stable output). The
    /// one function every number in an SVG goes through: it refuses a value that is not
    /// finite or beyond `maxMagnitude` (it used to write `inf` for a font size of 1e308), so
    /// the picture is not drawn and the renderer reports why (docs/render.md).
    static func number(_ d: Double) throws(SVGNumberError) -> String {
        guard d.isFinite, abs(d) <= maxMagnitude else { throw SVGNumberError(value: d) }
        let r = (d * 1000).rounded() / 1000
        if r == r.rounded(), abs(r) < 1e15 { return String(Int(r)) }
        var s = String(format: "%.3f", r)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s == "-0" ? "0" : s
    }
}

/// A number SVG cannot hold (not finite, or beyond `SVGText.maxMagnitude`), and the node whose
/// drawing needed it.
struct SVGNumberError: Error {
    var value: Double
    var path: String?
    var location: SourceLocation?

    /// The error the renderer reports.
    var diagnostic: Diagnostic {
        let v = value.isNaN ? "NaN" : value.isInfinite ? (value < 0 ? "-infinity" : "infinity") : "\(value)"
        let what = path.map { "\($0) would be drawn with" } ?? "the picture would hold"
        return .error("\(what) the number \(v), which an SVG picture cannot hold (every number is finite and at most 1e9 in magnitude, docs/render.md); the picture is not drawn",
                      at: location)
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

    /// The document's opening, as every picture starts: the XML declaration, `<svg>` of
    /// `pixelWidth`×`pixelHeight` pixels over a `width`×`height` point view box (left open), its
    /// title when there is one, and a background rectangle of class `background` when given.
    mutating func beginDocument(width: Double, height: Double, pixelWidth: Int, pixelHeight: Int, title: String?,
                                background: (class: String, fill: String)? = nil) throws(SVGNumberError) {
        raw("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
        element("svg", [("xmlns", "http://www.w3.org/2000/svg"), ("version", "1.1"), ("width", String(pixelWidth)),
                        ("height", String(pixelHeight)), ("viewBox", "0 0 \(try SVGText.number(width)) \(try SVGText.number(height))")], close: false)
        if let title { element("title", [], text: title) }
        if let background {
            element("rect", [("class", background.class), ("x", "0"), ("y", "0"), ("width", try SVGText.number(width)),
                             ("height", try SVGText.number(height)), ("fill", background.fill)])
        }
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
