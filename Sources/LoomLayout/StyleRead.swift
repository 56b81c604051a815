import Foundation
import LoomCore
import LoomStyles
import LoomText

/// Reading typed values out of resolved styles, meta and props (the output shapes of
/// docs/styles.md: insets `{top, left, bottom, right}`, size `{width, height}`, font
/// `{name, size}`, color `{r, g, b, a}`).
enum StyleRead {
    /// A finite number, or a string holding one ("12"); nil otherwise (nan and inf too).
    static func number(_ v: JSONValue?) -> Double? {
        guard let v else { return nil }
        let d = v.double ?? v.string.flatMap { Double($0) }
        guard let d, d.isFinite else { return nil }
        return d
    }

    /// A whole count from a number, clamped to 0…limit.
    static func count(_ v: JSONValue?, limit: Int = 10_000) -> Int? {
        number(v).map { Int(max(0, min(Double(limit), $0.rounded(.down)))) }
    }

    static func insets(_ v: JSONValue?) -> EdgeInsets? {
        guard let v else { return nil }
        if let d = number(v) { return EdgeInsets(top: d, left: d, bottom: d, right: d) }
        guard let o = v.object else { return nil }
        return EdgeInsets(top: number(o["top"]) ?? 0, left: number(o["left"]) ?? 0,
                          bottom: number(o["bottom"]) ?? 0, right: number(o["right"]) ?? 0)
    }

    static func size(_ v: JSONValue?) -> (width: Double?, height: Double?)? {
        guard let o = v?.object else { return nil }
        let w = number(o["width"]), h = number(o["height"])
        if w == nil && h == nil { return nil }
        return (w, h)
    }

    static func font(_ v: JSONValue?) -> FontRequest? {
        guard let o = v?.object, let name = o["name"]?.string else { return nil }
        let size = number(o["size"]) ?? IntrinsicSizer.defaultFontSize
        return FontRequest(name: name, size: size > 0 ? size : IntrinsicSizer.defaultFontSize)
    }

    /// `#RRGGBB` (`#RRGGBBAA` when not opaque) for a `{r, g, b, a}` color; a string as written.
    static func colorText(_ v: JSONValue?) -> String? {
        guard let v else { return nil }
        if let s = v.string { return s }
        guard let o = v.object else { return nil }
        func byte(_ k: String) -> Int { Int((max(0, min(1, number(o[k]) ?? (k == "a" ? 1 : 0))) * 255).rounded()) }
        var s = String(format: "#%02X%02X%02X", byte("r"), byte("g"), byte("b"))
        if byte("a") != 255 { s += String(format: "%02X", byte("a")) }
        return s
    }
}
