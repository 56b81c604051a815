import LoomCore

/// Compares two resolved trees (the `tree` of `host run --format json`) from component level
/// down to items, as Spots' differ does, and lists what changed.
public struct TreeDiffer: Sendable {
    /// Keys holding other nodes: compared node by node, never as a field of their parent.
    static let structural: Set<String> = ["children", "items", "header", "footer"]
    /// Keys whose change needs a reload (Spots' hard update): what the view is and how big.
    static let hardKeys: Set<String> = ["type", "view", "kind", "size", "frame", "layout", "props.size"]
    /// Objects whose members are compared one by one, so fields name the member (`props.title`).
    static let expanded: Set<String> = ["props", "meta", "style"]

    public private(set) var changes: [TreeChange] = []
    /// Matched nodes with no change of their own.
    public private(set) var unchanged = 0

    public init(old: JSONValue?, new: JSONValue?, rootPath: String = "root") {
        switch (old, new) {
        case let (o?, n?): compare(o, n, path: rootPath, oldPath: rootPath, oldIndex: nil, newIndex: nil)
        case let (nil, n?): insertedSubtree(n, path: rootPath, index: nil)
        case let (o?, nil): deletedSubtree(o, path: rootPath, index: nil)
        case (nil, nil): break
        }
    }

    public var counts: ChangeCounts { ChangeCounts(changes, unchanged: unchanged) }

    /// A node's name in changes: what sits in a collection's `items` is an item, whatever keys
    /// it has (an item without a `kind` was once called "component ?"); elsewhere a node with a
    /// `kind` and no `type` is an item, anything else a component.
    static func nodeName(_ v: JSONValue, inItems: Bool = false) -> String {
        inItems || (v["type"] == nil && v["kind"] != nil) ? "item" : "component"
    }
    static func typeName(_ v: JSONValue) -> String? { v["type"]?.string ?? v["kind"]?.string }

    /// The collection an item belongs to, for its name (`list 'watched'`).
    static func collectionName(_ parent: JSONValue?) -> String? {
        guard let parent else { return nil }
        return TreeChange.collectionName(type: typeName(parent), id: parent["id"]?.string)
    }

    private mutating func insertedSubtree(_ n: JSONValue, path: String, index: Int?, parent: JSONValue? = nil) {
        changes.append(TreeChange(node: Self.nodeName(n, inItems: parent != nil), id: n["id"]?.string, path: path, change: .inserted,
                                  type: Self.typeName(n), newIndex: index, collection: Self.collectionName(parent)))
    }

    private mutating func deletedSubtree(_ o: JSONValue, path: String, index: Int?, parent: JSONValue? = nil) {
        changes.append(TreeChange(node: Self.nodeName(o, inItems: parent != nil), id: o["id"]?.string, path: path, change: .deleted,
                                  type: Self.typeName(o), oldIndex: index, collection: Self.collectionName(parent)))
    }

    /// `path` is the node's place in the new tree, `oldPath` in the old one (deletions below it
    /// name old places).
    /// `parent`: the collection (new side) when the nodes are its items.
    private mutating func compare(_ o: JSONValue, _ n: JSONValue, path: String, oldPath: String, oldIndex: Int?, newIndex: Int?,
                                  parent: JSONValue? = nil) {
        var fields = Self.changedFields(o, n)
        // A prop that is the number of items before and after (a list's `item_count`) changed
        // because items were inserted or deleted: that is the items' change, reported per item,
        // not an update of the component (Spots updates the items, not the component).
        let oldCount = o["items"]?.array?.count, newCount = n["items"]?.array?.count
        if let oc = oldCount, let nc = newCount, oc != nc {
            fields.removeAll { f in
                guard f.hasPrefix("props."), let k = f.split(separator: ".", maxSplits: 1).last.map(String.init) else { return false }
                return o["props"]?[k]?.int == oc && n["props"]?[k]?.int == nc
            }
        }
        if !fields.isEmpty {
            let hard = fields.contains { Self.hardKeys.contains($0) }
            changes.append(TreeChange(node: Self.nodeName(n, inItems: parent != nil), id: n["id"]?.string ?? o["id"]?.string, path: path,
                                      change: hard ? .hard : .soft, type: Self.typeName(n),
                                      oldIndex: oldIndex, newIndex: newIndex, fields: fields, collection: Self.collectionName(parent), oldPath: oldPath))
        } else {
            unchanged += 1
        }
        for slot in ["header", "footer"] {
            let a = o[slot].flatMap { $0.isNull ? nil : $0 }, b = n[slot].flatMap { $0.isNull ? nil : $0 }
            switch (a, b) {
            case let (a?, b?): compare(a, b, path: path + "/" + slot, oldPath: oldPath + "/" + slot, oldIndex: nil, newIndex: nil)
            case let (a?, nil): deletedSubtree(a, path: oldPath + "/" + slot, index: nil)
            case let (nil, b?): insertedSubtree(b, path: path + "/" + slot, index: nil)
            case (nil, nil): break
            }
        }
        for list in ["children", "items"] {
            // `Optional`: JSONValue takes a nil literal itself (as null).
            let items = list == "items"
            compareLists(o[list]?.array ?? [], n[list]?.array ?? [], path: path, oldPath: oldPath, key: list,
                         parent: items ? Optional(n) : .none, oldParent: items ? Optional(o) : .none)
        }
    }

    /// `parent` / `oldParent`: the collection on each side when the lists are its items.
    private mutating func compareLists(_ old: [JSONValue], _ new: [JSONValue], path: String, oldPath: String, key: String,
                                       parent: JSONValue?, oldParent: JSONValue?) {
        if old.isEmpty && new.isEmpty { return }
        let m = SiblingMatch(old: old, new: new)
        for i in m.deleted { deletedSubtree(old[i], path: "\(oldPath)/\(key)[\(i)]", index: i, parent: oldParent) }
        for (oi, ni) in m.pairs.sorted(by: { $0.new < $1.new }) {
            let p = "\(path)/\(key)[\(ni)]"
            if m.moved.contains(ni) {
                changes.append(TreeChange(node: Self.nodeName(new[ni], inItems: parent != nil), id: new[ni]["id"]?.string, path: p,
                                          change: .moved, type: Self.typeName(new[ni]), oldIndex: oi, newIndex: ni,
                                          collection: Self.collectionName(parent)))
            }
            compare(old[oi], new[ni], path: p, oldPath: "\(oldPath)/\(key)[\(oi)]", oldIndex: oi, newIndex: ni, parent: parent)
        }
        // Insertions after the updates of the same list, in new order.
        for i in m.inserted { insertedSubtree(new[i], path: "\(path)/\(key)[\(i)]", index: i, parent: parent) }
    }

    /// The node's own keys whose values differ (members of props/meta/style one by one), sorted.
    static func changedFields(_ o: JSONValue, _ n: JSONValue) -> [String] {
        let oo = o.object ?? [:], no = n.object ?? [:]
        var keys = Set(oo.keys).union(no.keys)
        keys.subtract(structural)
        keys.remove("id")
        var out: [String] = []
        for k in keys {
            let a = oo[k], b = no[k]
            if Self.same(a, b) { continue }
            if expanded.contains(k), let ao = Self.members(a), let bo = Self.members(b) {
                for mk in Set(ao.keys).union(bo.keys) where !Self.same(ao[mk], bo[mk]) { out.append(k + "." + mk) }
            } else {
                out.append(k)
            }
        }
        return out.sorted()
    }

    /// Equal as JSON: objects whatever the order of their members (a file rewritten by a tool
    /// may reorder `{"width", "height"}`), arrays in order, numbers by value.
    static func same(_ a: JSONValue?, _ b: JSONValue?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        if a == b { return true }
        switch (a, b) {
        case (.object(let x), .object(let y)):
            guard x.count == y.count else { return false }
            for (k, v) in x { guard let w = y[k], same(v, w) else { return false } }
            return true
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        default:
            if let p = a.double, let q = b.double { return p == q }
            return false
        }
    }

    /// An object's members, an absent value as no members, anything else nil (compared whole).
    static func members(_ v: JSONValue?) -> [String: JSONValue]? {
        guard let v else { return [:] }
        guard let o = v.object else { return nil }
        return Dictionary(uniqueKeysWithValues: o.map { ($0.key, $0.value) })
    }
}
