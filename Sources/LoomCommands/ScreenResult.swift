import LoomCore
import LoomDiff
import LoomLayout
import LoomWorkspace
import LoomStyles
import OrderedCollections

/// What the pipeline answers a `ScreenRequest` with: a screen resolved for a user, with what
/// the request asked besides (graph, layout and its findings, what patches changed), and every
/// diagnostic found on the way, located. What `host run` prints and `host serve` answers.
public struct ScreenResult {
    /// The screen resolved for the user; nil when the request asked only for the graph, or when
    /// it stopped (`failure`).
    public var resolution: Resolution?
    /// The user it was resolved for (nil when the request stopped before picking one).
    public var profile: UserProfile?
    public var graph: NavigationOutput?
    public var explain: Bool
    public var diagnostics: Diagnostics
    /// A native screen's `title` and `description`, shown as written.
    public var screenInfo: [(key: String, value: JSONValue)] = []
    /// With patches: what they changed for this user (Spots' classes).
    public var changes: [TreeChange]?
    /// With `.layout`: the screen laid out for the device.
    public var layout: LayoutResult?
    /// The device context it was laid out for.
    public var layoutContext: DeviceContext?
    /// Set when the request could not be carried out (the screen, the user, the screen's syntax,
    /// a patch, the fonts): what stopped it, also in `diagnostics`. Nothing else is meaningful then.
    public var failure: Diagnostics?

    public init(resolution: Resolution? = nil, profile: UserProfile? = nil, graph: NavigationOutput? = nil, explain: Bool,
                diagnostics: Diagnostics = Diagnostics()) {
        self.resolution = resolution
        self.profile = profile
        self.graph = graph
        self.explain = explain
        self.diagnostics = diagnostics
    }

    /// A result of `screen` resolved: its `title` and `description` shown as written.
    public init(_ screen: Screen, resolution: Resolution, profile: UserProfile, graph: NavigationOutput?, explain: Bool,
                diagnostics: Diagnostics) {
        self.init(resolution: resolution, profile: profile, graph: graph, explain: explain, diagnostics: diagnostics)
        describe(screen)
    }

    /// Takes `screen`'s `title` and `description` as the result's screen info.
    mutating func describe(_ screen: Screen) {
        screenInfo = []
        if let t = screen.title { screenInfo.append(("title", t)) }
        if let d = screen.description { screenInfo.append(("description", d)) }
    }

    /// The layout's findings (empty without `.layout`).
    public var findings: [LayoutFinding] { layout?.findings ?? [] }

    /// `home · gold · iphone-15 portrait`: the title `host render` and `/v1/render` give a picture.
    public var pictureTitle: String {
        let context = layoutContext ?? .standard
        return "\(resolution?.screen ?? "") · \(profile?.name ?? "no user") · \(context.device.name) \(context.orientation.rawValue)"
    }

    /// The text (`host run`) or JSON (`host run --format json`, `host serve`) of a result that
    /// did not stop: the tree (with frames when laid out), then the findings, the changes and the graph.
    public func rendered(_ format: OutputFormat, style: Style) -> String {
        guard let resolution else { return "" }
        switch format {
        case .text:
            var out = TreeOutput.text(resolution, style: style, explain: explain, frames: layout?.treeFrames)
            var header = screenInfo.map { "\($0.key): " + TreeOutput.compact($0.value) + "\n" }
            if let layout { header.append(style.dim(layout.headerLine) + "\n") }
            if !header.isEmpty, let firstLine = out.firstIndex(of: "\n") {
                out.insert(contentsOf: header.joined(), at: out.index(after: firstLine))
            }
            if let layout {
                out += "\nfindings: " + (layout.findings.isEmpty ? "none" : "\(layout.findings.count)") + "\n"
                for f in layout.findingLines { out += "  " + TextEscape.escaped(f) + "\n" }
            }
            if let changes {
                out += "\nchanges: " + (changes.isEmpty ? "none" : "\(changes.count)") + "\n"
                for c in changes { out += "  " + c.line + "\n" }
            }
            if let g = graph {
                out += "\n" + g.text
                if !out.hasSuffix("\n") { out += "\n" }
            }
            return out
        case .json:
            // The tree is written node by node into the text (TreeOutput.serialized), not made
            // a JSONValue first: the same bytes, at a fraction of the cost for a whole screen.
            var o: [(key: String, value: TreeOutput.JSONMember)] = []
            // As an ordered dictionary's assignment: a key given again keeps its first place.
            func set(_ key: String, _ value: TreeOutput.JSONMember) {
                if let i = o.firstIndex(where: { $0.key == key }) { o[i].value = value } else { o.append((key, value)) }
            }
            set("screen", .value(.string(resolution.screen)))
            for (k, v) in screenInfo { set(k, .value(v)) }
            set("user", .value(.object(["name": profile?.name.map { .string($0) } ?? .null, "attributes": .object(profile?.attributes ?? [:])])))
            set("tree", resolution.tree.map { .tree($0, explain: explain, frames: layout?.treeFrames) } ?? .value(.null))
            if let layout { set("layout", .value(layout.json)) }
            if let changes { set("changes", .value(.array(changes.map(\.json)))) }
            set("graph", .value(graph?.json ?? .null))
            set("diagnostics", .value(TreeOutput.diagnosticsJSON(diagnostics.sorted)))
            return TreeOutput.serialized(o, pretty: true) + "\n"
        }
    }
}
