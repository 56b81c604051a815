// The styled look as data for the clickable preview (`GET /v1/preview/{id}` of `host serve`,
// docs/serve.md "The preview as a prototype"): each laid-out node's frame with the colours,
// fonts, measured lines and content the styled SVG draws, so the preview page can draw the
// screen as HTML (real text, every value set as text or a CSS property, never as markup).
import LoomCore
import LoomLayout
import LoomStyles
import LoomText

/// A laid-out screen as the preview page draws it: one entry per node, parents before their
/// children (the order the SVG paints them in).
public enum PreviewNodes {
    /// Nodes beyond this many are left out (and counted in `omitted`): the page draws one
    /// element per node, and a screen of thousands of items is not a preview any more.
    public static let maxNodes = 4000

    /// `{width, height, safe_area, device, orientation, nodes: [...], omitted, warnings}`.
    /// Colours are `#RRGGBB` or `rgba(r, g, b, a)` (parsed here, as the SVG's are, so the page
    /// only sets them as CSS values); a colour that does not parse is left out with a warning.
    public static func json(_ r: LayoutResult, content: ScreenContent) -> JSONValue {
        var nodes: [JSONValue] = []
        var omitted = 0
        var warnings: [String] = []
        let fonts = FontSizes()
        func visit(_ n: LaidOutNode, isRoot: Bool) {
            if nodes.count >= maxNodes {
                omitted += 1
            } else if let o = node(n, isRoot: isRoot, content: content, fonts: fonts, warnings: &warnings) {
                nodes.append(o)
            } else {
                omitted += 1
            }
            for c in n.children { visit(c, isRoot: false) }
        }
        if let root = r.root { visit(root, isRoot: true) }
        return .object([
            "width": .double(r.width), "height": .double(r.height), "safe_area": r.safeArea.json,
            "device": .string(r.device.name), "orientation": .string(r.orientation.rawValue),
            "nodes": .array(nodes), "omitted": .int(omitted), "warnings": .array(warnings.map { .string($0) }),
        ])
    }

    /// A frame's numbers, or nil when one is not finite or beyond ±1e7 points (such a node is
    /// not drawn, as the SVG refuses it).
    static func frame(_ f: Frame) -> JSONValue? {
        for v in [f.x, f.y, f.width, f.height] where !v.isFinite || abs(v) > 1e7 { return nil }
        return .object(["x": .double(f.x), "y": .double(f.y), "width": .double(max(0, f.width)), "height": .double(max(0, f.height))])
    }

    /// A CSS colour from a style's text, or nil (with a warning naming the node).
    static func css(_ text: String, _ n: LaidOutNode, _ what: String, _ warnings: inout [String]) -> String? {
        guard let c = SVGColor.parse(text) else {
            warnings.append("\(n.path): \(what) '\(text)' is not #RRGGBB or #AARRGGBB")
            return nil
        }
        return css(c)
    }

    static func css(_ c: SVGColor) -> String {
        if c.opacity == 1 { return c.rgb }
        let hex = Array(c.rgb.utf8.dropFirst())
        func byte(_ i: Int) -> Int { Int(String(decoding: hex[i..<i + 2], as: UTF8.self), radix: 16) ?? 0 }
        return "rgba(\(byte(0)), \(byte(2)), \(byte(4)), \(c.opacity))"
    }

    static func node(_ n: LaidOutNode, isRoot: Bool, content: ScreenContent, fonts: FontSizes, warnings: inout [String]) -> JSONValue? {
        guard let frame = frame(n.frame) else {
            warnings.append("\(n.path): a frame that is not a finite number of points; not drawn")
            return nil
        }
        let e = content[n.path] ?? ScreenContent.Entry()
        let d = ScreenDrawing.styledDefaults(n.role)
        var o: [(String, JSONValue)] = [("path", .string(n.path)), ("type", .string(n.type)), ("role", .string(n.role.rawValue)),
                                        ("frame", frame)]
        if let id = n.id { o.append(("id", .string(id))) }
        if let a = n.action { o.append(("action", .string(a))) }
        if n.hidden { o.append(("hidden", .bool(true))) }
        // The box, as ScreenDrawing.styledNode decides it: the style's background, else the
        // props' `background_color`, else the role's; a style border replaces the role's
        // outline; a button with a background of its own has none.
        let screenRoot = isRoot && n.role == .screen
        var fill = d.fill
        var styledFill = false
        if !screenRoot, let bg = n.background ?? e.background, let c = css(bg, n, "background", &warnings) {
            fill = c
            styledFill = true
        }
        var stroke: String?
        var width = 0.0
        if let w = e.borderWidth, w > 0 {
            stroke = e.borderColor.flatMap { css($0, n, "border_color", &warnings) } ?? "#000000"
            width = w
        } else if let s = d.stroke, !(n.role == .button && styledFill) {
            stroke = s
            width = d.width
        }
        if !screenRoot {
            if let fill { o.append(("fill", .string(fill))) }
            if let stroke {
                o.append(("stroke", .string(stroke)))
                o.append(("stroke_width", .double(width)))
            }
            let radius = min(e.cornerRadius ?? d.radius, n.frame.height / 2, n.frame.width / 2)
            if radius > 0 { o.append(("radius", .double(radius))) }
        }
        // Label and button text: the layout's measured lines (the same breaks as the layout).
        if n.role == .label || n.role == .button, let m = n.text, !m.lines.isEmpty {
            var colour = WireframeLegend.style(n.role).textColor
            if n.role == .button, n.textColor == nil, let t = e.tint, let c = SVGColor.parse(t), c.opacity == 1 { colour = c.rgb }
            if let t = n.textColor, let c = css(t, n, "text_color", &warnings) { colour = c }
            let name = m.face.name.lowercased()
            var families = [m.face.name]
            if let f = fonts.family(of: m.face), f != m.face.name { families.append(f) }
            o.append(("text", .object([
                "lines": .array(m.lines.map { .string($0) }),
                "families": .array(families.map { .string($0) }),
                "size": .double(fonts.size(of: m)), "line_height": .double(m.lineHeight),
                "bold": .bool(name.contains("bold")), "italic": .bool(name.contains("italic") || name.contains("oblique")),
                "color": .string(colour), "align": .string(n.role == .button ? "center" : "left"),
            ])))
        }
        if let t = e.title { o.append(("title", .string(t))) }
        if let s = e.subtitle { o.append(("subtitle", .string(s))) }
        if n.role == .image, let i = e.image { o.append(("image", .string(i))) }
        if n.role == .tabBar {
            var tint = StyledLook.selectedTab
            if let t = e.tint, let c = SVGColor.parse(t), c.opacity == 1 { tint = c.rgb }
            let selected = e.tabs.isEmpty ? 0 : min(max(e.selectedTab, 0), e.tabs.count - 1)
            o.append(("tabs", .array(e.tabs.enumerated().map { k, tab in
                var t: [(String, JSONValue)] = [("title", .string(tab.title)), ("selected", .bool(k == selected))]
                if let i = tab.icon { t.append(("icon", .string(i))) }
                return .object(.init(uniqueKeysWithValues: t))
            })))
            o.append(("tint", .string(tint)))
        }
        return .object(.init(uniqueKeysWithValues: o))
    }
}
