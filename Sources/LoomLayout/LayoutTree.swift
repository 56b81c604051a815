import LoomCore
import LoomSolver
import LoomStyles
import LoomText

/// One node taking part in layout, in a flat array (preorder): a component, a collection's
/// header, item or footer, or an item's nested component.
struct LNode: Sendable {
    enum Part: Sendable { case child, header, item, footer }
    var path: String
    var type: String
    var id: String?
    var view: String
    var role: LayoutRole
    var part: Part = .child
    var parent: Int?
    /// Laid-out children in order (a collection: header, items, footer; a tab bar: the
    /// selected tab only).
    var children: [Int] = []
    var props: JSONValue
    var meta: JSONValue?
    /// The resolved style's values (`NodeStyle.values`) and where each key came from.
    var style: JSONValue?
    var styleOrigins: [NodeStyle.Origin] = []
    /// The component carrying `constraints` (nil for items).
    var origin: Component?
    var location: SourceLocation?
    var action: String?
    var hidden: Bool
    /// An item's Spots `size` as written.
    var itemSize: JSONValue?
    /// The colour keys (`text_color`, `background`) of an inline `"style": {…}` object the host
    /// did not resolve (docs/styles.md): the accessibility check cannot read them, and says so.
    var unresolvedColourKeys: [String] = []
    /// The style names the node's `"style"` writes when none of them resolved (no property file
    /// of those names, or a project without property files): its colours are unknown.
    var unresolvedStyleNames: [String] = []
    // Text and intrinsic size (IntrinsicSizer).
    var text: String?
    var font = FontRequest(name: IntrinsicSizer.defaultFontName, size: IntrinsicSizer.defaultFontSize)
    var lines: Int?
    var padding = EdgeInsets()
    var intrinsicWidth: Double?
    var intrinsicHeight: Double?
    var oneLineWidth: Double?
    /// The text measured on one line, with the widths it stays so at (the final measuring
    /// reuses it at such a width instead of measuring again).
    var unwrapped: UnwrappedText?
    var metrics: TextMetrics?

    var isFirstChild: Bool = false
}

/// The laid-out nodes of a resolved tree.
struct LayoutTree: Sendable {
    var nodes: [LNode] = []
    /// Ids to node indices, first in preorder winning.
    var byID: [String: Int] = [:]
    /// Every id in the tree (for did-you-mean), sorted.
    var ids: [String] = []

    init(root: ResolvedNode, factory: Factory, showHidden: Bool) {
        if root.hidden && !showHidden { return }
        nodes.reserveCapacity(LayoutTree.count(root))  // the array is not copied as it grows
        add(root, parent: nil, part: .child, factory: factory, showHidden: showHidden)
        ids = byID.keys.sorted()
    }

    /// Every node under `n` (itself, header, children, items and their children, footer),
    /// hidden ones too: at least as many as are laid out.
    static func count(_ n: ResolvedNode) -> Int {
        var total = 1
        if let h = n.header { total += count(h) }
        for c in n.children { total += count(c) }
        for item in n.items ?? [] { total += 1 + item.children.reduce(0) { $0 + count($1) } }
        if let f = n.footer { total += count(f) }
        return total
    }

    static func role(_ type: String, factory: Factory) -> LayoutRole {
        guard let reg = factory.componentRegistration(type) else { return .view }
        if let r = reg.layoutAs, let role = LayoutRole(rawValue: r) { return role }
        switch reg.kind {
        case .single: return .view
        case .cluster, .wrapper: return .container
        case .collection: return .collection
        }
    }

    @discardableResult
    mutating func add(_ n: ResolvedNode, parent: Int?, part: LNode.Part, factory: Factory, showHidden: Bool) -> Int {
        let index = nodes.count
        // A header or footer read as an item (Spots) is laid out as an item is.
        nodes.append(LNode(path: n.path, type: n.type, id: n.id, view: n.view,
                           role: n.asItem == nil ? LayoutTree.role(n.type, factory: factory) : .item,
                           part: part, parent: parent, props: n.props, meta: n.meta, style: n.resolvedStyle?.values,
                           styleOrigins: n.resolvedStyle?.origins ?? [], origin: n.origin, location: n.location,
                           action: n.action, hidden: n.hidden, itemSize: n.asItem?.size))
        if n.resolvedStyle == nil, let written = n.style {
            if let inline = written.object {
                nodes[index].unresolvedColourKeys = ["text_color", "background"].filter { inline[$0] != nil }
            } else if let name = written.string {
                nodes[index].unresolvedStyleNames = [name]
            } else if let names = written.array {
                nodes[index].unresolvedStyleNames = names.compactMap(\.string)
            }
        }
        if let id = n.id, byID[id] == nil { byID[id] = index }
        var kids: [Int] = []
        func visible(_ c: ResolvedNode) -> Bool { !c.hidden || showHidden }
        if let h = n.header, visible(h) { kids.append(add(h, parent: index, part: .header, factory: factory, showHidden: showHidden)) }
        let shown = n.children.filter(visible)
        if nodes[index].role == .tabBar {
            if !shown.isEmpty {
                let selected = n.props["selected_index"]?.int ?? n.meta?["selected_index"]?.int ?? 0
                let k = min(max(selected, 0), shown.count - 1)
                kids.append(add(shown[k], parent: index, part: .child, factory: factory, showHidden: showHidden))
            }
        } else {
            for c in shown { kids.append(add(c, parent: index, part: .child, factory: factory, showHidden: showHidden)) }
        }
        for item in n.items ?? [] where !item.hidden || showHidden {
            let i = nodes.count
            nodes.append(LNode(path: item.path, type: item.kind ?? "item", id: item.id, view: item.view, role: .item, part: .item,
                               parent: index, props: item.props, meta: nil, style: nil, origin: nil, location: item.location,
                               action: item.action, hidden: item.hidden, itemSize: item.size))
            if let id = item.id, byID[id] == nil { byID[id] = i }
            var itemKids: [Int] = []
            for c in item.children where visible(c) {
                itemKids.append(add(c, parent: i, part: .child, factory: factory, showHidden: showHidden))
            }
            nodes[i].children = itemKids
            kids.append(i)
        }
        if let f = n.footer, visible(f) { kids.append(add(f, parent: index, part: .footer, factory: factory, showHidden: showHidden)) }
        nodes[index].children = kids
        return index
    }

    /// The previous / next sibling among the laid-out children of the same parent and part.
    func sibling(of i: Int, offset: Int) -> Int? {
        guard let p = nodes[i].parent else { return nil }
        let list = nodes[p].children
        guard let k = list.firstIndex(of: i) else { return nil }
        let j = k + offset
        return j >= 0 && j < list.count ? list[j] : nil
    }

    /// The LaidOutNode tree under node `i`, frames rounded to the grid.
    func laidOut(_ i: Int, solved: LayoutSystem, grid: PixelGrid) -> LaidOutNode {
        let f = grid.round(solved.frame(of: i))
        return LaidOutNode(path: nodes[i].path, type: nodes[i].type, id: nodes[i].id, view: nodes[i].view, role: nodes[i].role, frame: f, text: nodes[i].metrics,
                           action: nodes[i].action, background: StyleRead.colorText(nodes[i].style?["background"]),
                           textColor: StyleRead.colorText(nodes[i].style?["text_color"]), location: nodes[i].location, hidden: nodes[i].hidden,
                           children: nodes[i].children.map { laidOut($0, solved: solved, grid: grid) })
    }

    /// `#id (path)` or `path`, as messages name a node.
    func describe(_ i: Int) -> String {
        if let id = nodes[i].id { return "#\(id) (\(nodes[i].path))" }
        return "\(nodes[i].type) (\(nodes[i].path))"
    }
}
