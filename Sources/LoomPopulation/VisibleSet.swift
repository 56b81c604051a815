import LoomCore
import OrderedCollections

/// What a resolved screen shows, as `host eval --select` prints it.
public enum EvalSelect: String, Sendable, CaseIterable {
    /// Every visible component and item, by id (see `VisibleSet`).
    case visible
    /// The resolved tree, as `host run --format json` prints it.
    case tree
    /// Every visible action, in document order.
    case actions
    /// A stable digest of the resolved tree (`TreeDigest`).
    case hash
    /// The nodes the user's client could not render (clients.json, docs/clients.md): each
    /// `{"node": ID or path, "type": T, "fallback": FALLBACK ID | "drop" | null}`.
    case unsupported
}

/// The visible components and items of a resolved tree, in document order (a node, its header,
/// its children, its items each followed by their nested components, its footer).
///
/// A component is named by its `id`, else by its path in the screen (`root/children[1]`); an item
/// by its `id`, else its `action`, else its path. A hidden node's subtree is not visited.
public enum VisibleSet {
    public static func ids(_ tree: ResolvedNode?) -> [String] {
        var out: [String] = []
        forEach(tree) { out.append($0) }
        return out
    }

    /// Each visible id in order, handed to `body` (no array of them made).
    static func forEach(_ tree: ResolvedNode?, _ body: (String) -> Void) {
        guard let tree else { return }
        visit(tree, body)
    }

    // Nodes are walked through buffers: iterating an array of them would copy each node (a
    // retain per field) on its way.
    private static func visit(_ n: ResolvedNode, _ body: (String) -> Void) {
        if n.hidden { return }
        body(n.id ?? n.path)
        if let h = n.header { visit(h, body) }
        n.children.withUnsafeBufferPointer { cs in for k in cs.indices { visit(cs[k], body) } }
        if let items = n.items {
            items.withUnsafeBufferPointer { its in
                for k in its.indices where !its[k].hidden {
                    body(its[k].id ?? its[k].action ?? its[k].path)
                    its[k].children.withUnsafeBufferPointer { cs in for j in cs.indices { visit(cs[j], body) } }
                }
            }
        }
        if let f = n.footer { visit(f, body) }
    }
}

/// A stable digest of a resolved tree: 64-bit FNV-1a over the tree's compact JSON (as `host run
/// --format json` prints it, without whitespace), as 16 lowercase hex digits; `null`'s digest
/// when the root is hidden. Equal trees have equal digests across runs, machines and `--jobs`.
public enum TreeDigest {
    public static func hex(_ tree: ResolvedNode?) -> String {
        let text = (tree.map { TreeOutput.json($0, explain: false) } ?? .null).serialized(pretty: false)
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in text.utf8 {
            h ^= UInt64(b)
            h = h &* 0x0000_0100_0000_01b3
        }
        let s = String(h, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }
}
