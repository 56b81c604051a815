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

    init(isItem: Bool, type: String, id: String?, view: String, props: JSONValue, action: String?, children: [SnapNode] = []) {
        self.isItem = isItem
        self.type = type
        self.id = id
        self.view = view
        self.props = props
        self.action = action
        self.children = children
    }

    /// A visible resolved tree (hidden nodes, present only with explain, are left out).
    init(_ n: ResolvedNode) {
        var kids: [SnapNode] = []
        for c in n.children where !c.hidden { kids.append(SnapNode(c)) }
        for i in n.items ?? [] where !i.hidden {
            var item = SnapNode(
                isItem: true, type: i.kind ?? "item", id: i.id, view: i.view, props: JSONNormal.sorted(i.props), action: i.action)
            item.children = i.children.filter { !$0.hidden }.map(SnapNode.init)
            kids.append(item)
        }
        self.init(isItem: false, type: n.type, id: n.id, view: n.view, props: JSONNormal.sorted(n.props), action: n.action, children: kids)
    }

    /// `title` prop of an item, for messages.
    var title: String? {
        if case .object(let o) = props, case .string(let t)? = o["title"] { return t }
        return nil
    }
}
