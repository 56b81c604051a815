import Foundation
import LoomCore
import LoomPlugins
import OrderedCollections

/// One node of a snapshot tree: a component, or an item (`isItem`), as the snapshot file shows
/// it. Built from a resolved tree, or parsed back from a `.snap` file for the structural diff.
struct SnapNode: Sendable, Equatable {
    var isItem: Bool
    /// The component type, or the item kind (`item` when it has none).
    var type: String
    var id: String?
    var view: String
    /// Props with keys sorted at every level.
    var props: JSONValue
    var action: String?
    var children: [SnapNode]
    /// `header` or `footer` for a collection's header and footer (shown first and last).
    var role: String?
    /// Sorted keys: a component's `style` (resolved, or as written) and undeclared meta, an
    /// item's `size`.
    var extras: [(key: String, value: JSONValue)] = []

    /// The extras' keys, in the order a snapshot line shows them.
    static let extraKeys = ["style", "extra_meta", "size", "frame"]

    init(isItem: Bool, type: String, id: String?, view: String, props: JSONValue, action: String?, children: [SnapNode] = [],
         role: String? = nil, extras: [(key: String, value: JSONValue)] = []) {
        self.isItem = isItem
        self.type = type
        self.id = id
        self.view = view
        self.props = props
        self.action = action
        self.children = children
        self.role = role
        self.extras = extras
    }

    /// A visible resolved tree (hidden nodes, present only with explain, are left out); with
    /// `frames` (a screen opened for a device), each laid-out node's frame.
    init(_ n: ResolvedNode, frames: TreeFrames? = nil) { self.init(n, role: nil, frames: frames) }

    init(_ n: ResolvedNode, role: String?, frames: TreeFrames? = nil) {
        var kids: [SnapNode] = []
        func itemNode(_ i: ResolvedItem, role: String? = nil) -> SnapNode {
            var item = SnapNode(
                isItem: true, type: i.kind ?? "item", id: i.id, view: i.view, props: JSONNormal.sorted(i.props), action: i.action,
                role: role)
            if let sz = i.size { item.extras = [("size", JSONNormal.sorted(sz))] }
            if let f = frames?.byPath[i.path] { item.extras.append(("frame", f.json)) }
            item.children = i.children.filter { !$0.hidden }.map { SnapNode($0, frames: frames) }
            return item
        }
        // A header or footer read as an item (Spots) is shown as an item, in its place.
        func part(_ p: ResolvedNode, role: String) -> SnapNode {
            p.asItem.map { itemNode($0, role: role) } ?? SnapNode(p, role: role, frames: frames)
        }
        if let h = n.header, !h.hidden { kids.append(part(h, role: "header")) }
        for c in n.children where !c.hidden { kids.append(SnapNode(c, frames: frames)) }
        for i in n.items ?? [] where !i.hidden { kids.append(itemNode(i)) }
        if let f = n.footer, !f.hidden { kids.append(part(f, role: "footer")) }
        var extras: [(key: String, value: JSONValue)] = []
        // The resolved style when one applies (the device's values), else `style` as written.
        if let rs = n.resolvedStyle {
            extras.append(("style", JSONNormal.sorted(rs.values)))
        } else if let st = n.style {
            extras.append(("style", JSONNormal.sorted(st)))
        }
        if let m = n.extraMeta { extras.append(("extra_meta", JSONNormal.sorted(m))) }
        if let f = frames?.byPath[n.path] { extras.append(("frame", f.json)) }
        self.init(isItem: false, type: n.type, id: n.id, view: n.view, props: JSONNormal.sorted(n.props), action: n.action,
                  children: kids, role: role, extras: extras)
    }

    static func == (a: SnapNode, b: SnapNode) -> Bool {
        a.isItem == b.isItem && a.type == b.type && a.id == b.id && a.view == b.view && a.props == b.props
            && a.action == b.action && a.children == b.children && a.role == b.role
            && a.extras.map(\.key) == b.extras.map(\.key) && a.extras.map(\.value) == b.extras.map(\.value)
    }

    /// `title` prop of an item, for messages.
    var title: String? {
        if case .object(let o) = props, case .string(let t)? = o["title"] { return t }
        return nil
    }
}
