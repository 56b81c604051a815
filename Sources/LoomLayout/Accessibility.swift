import Foundation
import LoomCore

/// A colour with channels 0…1 (sRGB, not premultiplied).
public struct RGBA: Sendable, Hashable {
    public var r, g, b, a: Double
    public init(r: Double, g: Double, b: Double, a: Double = 1) {
        self.r = r
        self.g = g
        self.b = b
        self.a = a
    }
    public static let white = RGBA(r: 1, g: 1, b: 1)
    public static let black = RGBA(r: 0, g: 0, b: 0)

    /// A resolved style's colour (`{"r","g","b","a"}`, docs/styles.md) or a colour as the style
    /// files write it: `#RRGGBB`, or `#AARRGGBB` with alpha first. Nil for anything else.
    public static func parse(_ v: JSONValue?) -> RGBA? {
        guard let v else { return nil }
        if let s = v.string { return hex(s) }
        guard let o = v.object else { return nil }
        func c(_ k: String, _ missing: Double) -> Double? {
            guard let x = o[k] else { return missing }
            guard let d = x.double, d.isFinite else { return nil }
            return max(0, min(1, d))
        }
        guard let r = c("r", 0), let g = c("g", 0), let b = c("b", 0), let a = c("a", 1) else { return nil }
        return RGBA(r: r, g: g, b: b, a: a)
    }

    /// `#RRGGBB` or `#AARRGGBB`.
    public static func hex(_ s: String) -> RGBA? {
        // Hex digits only: `UInt32(_:radix:)` alone would take a sign ("#+12345").
        let digits = s.utf8.dropFirst()
        guard s.hasPrefix("#"), digits.count == 6 || digits.count == 8,
              digits.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 102) }),
              let n = UInt32(s.dropFirst(), radix: 16) else { return nil }
        let byte = { (shift: UInt32) in Double((n >> shift) & 0xFF) / 255 }
        return RGBA(r: byte(16), g: byte(8), b: byte(0), a: s.utf8.count == 9 ? byte(24) : 1)
    }

    /// This colour drawn over an opaque `below` (source-over compositing); opaque.
    public func over(_ below: RGBA) -> RGBA {
        RGBA(r: r * a + below.r * (1 - a), g: g * a + below.g * (1 - a), b: b * a + below.b * (1 - a))
    }

    /// WCAG 2.2, "relative luminance" (https://www.w3.org/TR/WCAG22/#dfn-relative-luminance):
    /// L = 0.2126 R + 0.7152 G + 0.0722 B, each channel linearised from sRGB as
    /// c ≤ 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ^ 2.4. Alpha is ignored (composite first).
    public var relativeLuminance: Double {
        func lin(_ c: Double) -> Double { c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4) }
        return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
    }

    /// WCAG 2.2, "contrast ratio" (https://www.w3.org/TR/WCAG22/#dfn-contrast-ratio):
    /// (L1 + 0.05) / (L2 + 0.05), L1 the lighter colour's relative luminance; 1 … 21.
    public static func contrastRatio(_ x: RGBA, _ y: RGBA) -> Double {
        let a = x.relativeLuminance, b = y.relativeLuminance
        return (max(a, b) + 0.05) / (min(a, b) + 0.05)
    }

    /// `#RRGGBB` (opaque), for messages.
    public var hexText: String {
        func byte(_ c: Double) -> Int { Int((max(0, min(1, c)) * 255).rounded()) }
        var s = String(format: "#%02X%02X%02X", byte(r), byte(g), byte(b))
        if a < 1 { s = String(format: "#%02X", byte(a)) + s.dropFirst() }
        return s
    }
}

/// The accessibility findings (docs/accessibility.md), per node in this order:
/// - low_contrast: a label or button showing text whose text colour (style `text_color`,
///   default black) drawn on its effective background (its own `background`, else the nearest
///   ancestor's, each composited over the one below it, down to the screen background) has a
///   WCAG 2.2 contrast ratio below 4.5:1, or below 3:1 for large text (at least 18 points, or 14
///   points in a bold font: a font name containing "Bold") — WCAG 2.2 success criterion 1.4.3;
/// - missing_label: an image, or a button without text, whose meta (or props) has no non-empty
///   `accessibility_label` and is not marked decorative (`"accessibility_hidden": true`).
struct AccessibilityCheck {
    static let minimumRatio = 4.5
    static let minimumLargeRatio = 3.0
    let tree: LayoutTree
    /// Each node's effective background (opaque), by index; preorder, so a parent's is known
    /// before its children's.
    let backgrounds: [RGBA]

    init(tree: LayoutTree, screenBackground: RGBA) {
        self.tree = tree
        var bg: [RGBA] = []
        bg.reserveCapacity(tree.nodes.count)
        let screen = screenBackground.over(.white)
        for n in tree.nodes {
            let below = n.parent.map { bg[$0] } ?? screen
            bg.append(RGBA.parse(n.style?["background"]).map { $0.over(below) } ?? below)
        }
        backgrounds = bg
    }

    /// Whether text in `font` is large text in WCAG's sense.
    static func isLarge(size: Double, fontName: String) -> Bool {
        size >= 18 || (size >= 14 && fontName.lowercased().contains("bold"))
    }

    func findings(_ i: Int, _ out: inout [LayoutFinding]) {
        let n = tree.nodes[i]
        if IntrinsicSizer.isText(n.role), let text = n.text, !text.isEmpty,
           let keys = unresolvedInlineColours(i) {
            // Colours in an inline style object are not resolved (docs/styles.md): the ratio
            // would be computed from colours the app does not use, so the check says it could
            // not be made instead of passing silently.
            out.append(LayoutFinding(kind: .lowContrast, path: n.path,
                                     message: "the contrast of the text of \(tree.describe(i)) is not checked: \(keys.joined(separator: " and ")) \(keys.count == 1 ? "is" : "are") in an inline \"style\" object, which the host does not resolve",
                                     location: n.location,
                                     fix: "move \(keys.joined(separator: " and ")) into a property file of the styles folder (styles/NAME.json) and name it: \"style\": \"NAME\" (docs/styles.md)"))
        } else if IntrinsicSizer.isText(n.role), let text = n.text, !text.isEmpty,
                  let names = unresolvedStyleNames(i) {
            // A style name that resolved to nothing: the app may well have colours under that
            // name, the host does not, so the ratio would be a guess.
            let quoted = names.map { "'\(TextEscape.escaped($0))'" }.joined(separator: ", ")
            out.append(LayoutFinding(kind: .lowContrast, path: n.path,
                                     message: "the contrast of the text of \(tree.describe(i)) is not checked: its colours come from style \(quoted), which no property file of the styles folders defines",
                                     location: n.location,
                                     fix: "add a property file for \(quoted) with its 'text_color' and 'background' (styles/NAME.json, docs/styles.md), or remove the name"))
        } else if IntrinsicSizer.isText(n.role), let text = n.text, !text.isEmpty {
            let bg = backgrounds[i]
            let fg = (RGBA.parse(n.style?["text_color"]) ?? .black).over(bg)
            let ratio = RGBA.contrastRatio(fg, bg)
            let large = AccessibilityCheck.isLarge(size: n.font.size, fontName: n.font.name)
            let need = large ? AccessibilityCheck.minimumLargeRatio : AccessibilityCheck.minimumRatio
            if ratio < need {
                let what = large ? "large text (\(Frame.number(n.font.size)) points)" : "text under 18 points (\(Frame.number(n.font.size)) points)"
                out.append(LayoutFinding(kind: .lowContrast, path: n.path,
                                         message: "the text of \(tree.describe(i)) (\(fg.hexText) on \(bg.hexText)) has a contrast ratio of \(String(format: "%.2f", ratio)):1, below the \(Frame.number(need)):1 WCAG 2.2 asks for \(what)",
                                         location: n.location,
                                         fix: "change its style's 'text_color' or the 'background' behind it to reach \(Frame.number(need)):1"))
            }
        }
        let unlabelled = n.role == .image || (n.role == .button && (n.text ?? "").isEmpty)
        if unlabelled, !AccessibilityCheck.labelled(n) {
            out.append(LayoutFinding(kind: .missingLabel, path: n.path,
                                     message: "\(tree.describe(i)) is \(n.role == .image ? "an image" : "a button without text") and has no accessibility_label: VoiceOver has nothing to read",
                                     location: n.location,
                                     fix: "add \"accessibility_label\": \"…\" to its meta (or \"accessibility_hidden\": true when it is decorative)"))
        }
    }

    /// The inline-style colour keys that decide node `i`'s contrast and were not resolved: its
    /// own `text_color` or `background`, or an ancestor's `background`; nil when there are none.
    func unresolvedInlineColours(_ i: Int) -> [String]? {
        var keys = tree.nodes[i].unresolvedColourKeys
        var p = tree.nodes[i].parent
        while let j = p, !keys.contains("background") {
            if tree.nodes[j].style?["background"] != nil { break }
            if tree.nodes[j].unresolvedColourKeys.contains("background") { keys.append("background") }
            p = tree.nodes[j].parent
        }
        return keys.isEmpty ? nil : keys
    }

    /// The style names that decide node `i`'s contrast and resolved to nothing: its own, or an
    /// ancestor's below the nearest resolved `background`; nil when there are none.
    func unresolvedStyleNames(_ i: Int) -> [String]? {
        var names = tree.nodes[i].unresolvedStyleNames
        var p = tree.nodes[i].parent
        while let j = p {
            if tree.nodes[j].style?["background"] != nil { break }
            for x in tree.nodes[j].unresolvedStyleNames where !names.contains(x) { names.append(x) }
            p = tree.nodes[j].parent
        }
        return names.isEmpty ? nil : names
    }

    static func labelled(_ n: LNode) -> Bool {
        for source in [n.meta, n.props] {
            if let s = source?["accessibility_label"]?.string, !s.trimmingCharacters(in: .whitespaces).isEmpty { return true }
            if source?["accessibility_hidden"]?.bool == true { return true }
        }
        return false
    }
}
