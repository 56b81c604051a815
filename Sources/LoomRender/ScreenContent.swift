// What a styled picture shows besides the layout's boxes and measured label/button text: item
// titles and subtitles, bar titles and tab labels, collection titles, image names, and the
// style values the layout does not carry (docs/render.md, "Styled look").
import LoomCore
import LoomStyles

/// Per laid-out path (`root/children[0]/items[2]`, the layout's `LaidOutNode.path`), what the
/// node shows, read from the resolved tree the layout was made from. The layout keeps only what
/// it measures (labels' and buttons' text, `background`, `text_color`); everything else a
/// picture needs is here, so `LoomLayout` stays about frames.
public struct ScreenContent: Sendable, Hashable {
    /// One tab of a tab bar: its label and its icon's name.
    public struct Tab: Sendable, Hashable {
        public var title: String
        public var icon: String?
        public init(title: String, icon: String? = nil) {
            self.title = title
            self.icon = icon
        }
    }

    public struct Entry: Sendable, Hashable {
        /// A navigation bar's, collection's, item's or view's title.
        public var title: String?
        /// An item's second line.
        public var subtitle: String?
        /// The image an image component or an item shows, as written (a name or a URL).
        public var image: String?
        /// A tab bar's tabs, in order, and the selected one.
        public var tabs: [Tab] = []
        public var selectedTab = 0
        /// Props `background_color` (a view's own colour, as Matrioska components carry it).
        public var background: String?
        /// Style values: `corner_radius`, `border_width`, `border_color`, `tint`.
        public var cornerRadius: Double?
        public var borderWidth: Double?
        public var borderColor: String?
        public var tint: String?
        public init(title: String? = nil, subtitle: String? = nil, image: String? = nil, tabs: [Tab] = [], selectedTab: Int = 0,
                    background: String? = nil, cornerRadius: Double? = nil, borderWidth: Double? = nil, borderColor: String? = nil,
                    tint: String? = nil) {
            self.title = title
            self.subtitle = subtitle
            self.image = image
            self.tabs = tabs
            self.selectedTab = selectedTab
            self.background = background
            self.cornerRadius = cornerRadius
            self.borderWidth = borderWidth
            self.borderColor = borderColor
            self.tint = tint
        }
    }

    public var entries: [String: Entry]

    public init(entries: [String: Entry] = [:]) { self.entries = entries }

    public subscript(path: String) -> Entry? { entries[path] }

    /// Reads every node of `tree` (header, children, items and their children, footer; hidden
    /// ones too, for `--show-hidden`).
    public init(tree: ResolvedNode?) {
        entries = [:]
        if let tree { visit(tree) }
    }

    private mutating func visit(_ n: ResolvedNode) {
        if let item = n.asItem {
            entries[n.path] = ScreenContent.entry(item)
        } else {
            entries[n.path] = ScreenContent.entry(n)
        }
        if let h = n.header { visit(h) }
        for c in n.children { visit(c) }
        for item in n.items ?? [] {
            entries[item.path] = ScreenContent.entry(item)
            for c in item.children { visit(c) }
        }
        if let f = n.footer { visit(f) }
    }

    /// The first key of `keys` holding a non-empty string (a number is written as text).
    static func string(_ v: JSONValue?, _ keys: [String]) -> String? {
        for k in keys {
            guard let x = v?[k] else { continue }
            if let s = x.string, !s.isEmpty { return s }
            if let d = x.double, d.isFinite { return d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d) }
        }
        return nil
    }

    static func entry(_ n: ResolvedNode) -> Entry {
        var e = Entry()
        e.title = string(n.props, ["title", "text"]) ?? string(n.meta, ["title"])
        e.subtitle = string(n.props, ["subtitle"])
        e.image = string(n.props, ["image", "image_name", "name", "url", "src"]) ?? string(n.meta, ["image", "image_name", "name", "url"])
        e.background = string(n.props, ["background_color"])
        if let tabs = n.props["tabs"]?.array {
            e.tabs = tabs.map { Tab(title: string($0, ["title", "text"]) ?? "", icon: string($0, ["icon", "icon_name", "image"])) }
        } else if n.type == "tab_bar" || n.view == "TabBarController" {
            // No tabs prop: the children's tab configuration, as the tab bar builds it.
            e.tabs = n.children.filter { !$0.hidden }.map { c in
                let config = c.meta?["tab_config"]
                return Tab(title: string(config, ["title"]) ?? string(c.props, ["title"]) ?? string(c.meta, ["title"]) ?? "",
                           icon: string(config, ["icon_name", "icon"]))
            }
        }
        e.selectedTab = n.props["selected_index"]?.int ?? n.meta?["selected_index"]?.int ?? 0
        if let s = n.resolvedStyle?.values {
            e.cornerRadius = number(s["corner_radius"])
            e.borderWidth = number(s["border_width"])
            e.borderColor = colorText(s["border_color"])
            e.tint = colorText(s["tint"])
        }
        return e
    }

    static func entry(_ i: ResolvedItem) -> Entry {
        var e = Entry()
        e.title = string(i.props, ["title"]) ?? i.title ?? i.origin?.title ?? string(i.props, ["name", "text", "label"])
        e.subtitle = string(i.props, ["subtitle"]) ?? i.origin?.subtitle ?? string(i.props, ["detail", "description", "caption"])
            ?? i.origin?.text
        e.image = string(i.props, ["image", "image_name"]) ?? i.origin?.image
        e.background = string(i.props, ["background_color"])
        return e
    }

    /// A finite number from 0 to 1,000 (a radius or border width), else nil.
    static func number(_ v: JSONValue?) -> Double? {
        guard let d = v?.double, d.isFinite, d >= 0, d <= 1000 else { return nil }
        return d
    }

    /// A colour as written (`#RRGGBB`…), or a typed `{r, g, b, a}` as `#AARRGGBB`.
    static func colorText(_ v: JSONValue?) -> String? {
        guard let v else { return nil }
        if let s = v.string { return s }
        guard let o = v.object else { return nil }
        func byte(_ k: String) -> Int {
            let d = o[k]?.double ?? (k == "a" ? 1 : 0)
            return Int((max(0, min(1, d.isFinite ? d : 0)) * 255).rounded())
        }
        let hex = Array("0123456789ABCDEF")
        func two(_ b: Int) -> String { String(hex[b >> 4]) + String(hex[b & 15]) }
        let a = byte("a")
        return "#" + (a == 255 ? "" : two(a)) + two(byte("r")) + two(byte("g")) + two(byte("b"))
    }
}
