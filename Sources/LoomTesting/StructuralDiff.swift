import Foundation
import LoomCore
import LoomPlugins
import OrderedCollections

enum StructuralDiff {
    struct Flat {
        var key: String
        var path: String
        var parentKey: String?
        var node: SnapNode
    }

    static func segment(_ n: SnapNode, index: Int, sameTypeIndex: Int) -> String {
        if let id = n.id { return id }
        return n.isItem ? "items[\(index)]" : "\(n.type)[\(sameTypeIndex)]"
    }

    static func flatten(_ root: SnapNode?) -> OrderedDictionary<String, Flat> {
        var out = OrderedDictionary<String, Flat>()
        func visit(_ n: SnapNode, key: String, path: String, parentKey: String?) {
            var k = key
            if out[k] != nil { k += "@\(out.count)" }   // duplicate ids: keep both
            out[k] = Flat(key: k, path: path, parentKey: parentKey, node: n)
            var itemIndex = 0
            var perType: [String: Int] = [:]
            for c in n.children {
                let seg: String
                if c.isItem {
                    seg = segment(c, index: itemIndex, sameTypeIndex: 0)
                    itemIndex += 1
                } else {
                    let t = perType[c.type, default: 0]
                    perType[c.type] = t + 1
                    seg = segment(c, index: 0, sameTypeIndex: t)
                }
                let childPath = path + "/" + seg
                let childKey = c.id.map { (c.isItem ? "item#" : "#") + $0 } ?? (k + "/" + seg)
                visit(c, key: childKey, path: childPath, parentKey: k)
            }
        }
        if let root {
            let seg = root.id ?? root.type
            visit(root, key: root.id.map { "#" + $0 } ?? "/" + seg, path: seg, parentKey: nil)
        }
        return out
    }

    static func describe(_ n: SnapNode) -> String {
        if n.isItem {
            var s = n.type
            if let id = n.id { s += " #" + id }
            if let t = n.title { s += " \"\(t)\"" }
            if let a = n.action { s += " → " + a }
            return s
        }
        var s = n.type
        if let id = n.id { s += " #" + id }
        return s
    }

    static func count(_ n: SnapNode) -> Int { 1 + n.children.reduce(0) { $0 + count($1) } }

    /// The difference lines (`+ added …`, `- removed …`, `~ changed …`), empty when equal.
    static func diff(expected: SnapNode?, actual: SnapNode?) -> [String] {
        let a = flatten(expected)
        let b = flatten(actual)
        var out: [String] = []
        for (k, e) in a where b[k] == nil {
            if let p = e.parentKey, b[p] == nil, a[p] != nil { continue }   // inside a removed subtree
            let below = count(e.node) - 1
            out.append("- removed \(e.path) (\(describe(e.node))\(below > 0 ? ", with \(below) node\(below == 1 ? "" : "s") below" : ""))")
        }
        for (k, n) in b where a[k] == nil {
            if let p = n.parentKey, a[p] == nil, b[p] != nil { continue }
            let below = count(n.node) - 1
            out.append("+ added \(n.path) (\(describe(n.node))\(below > 0 ? ", with \(below) node\(below == 1 ? "" : "s") below" : ""))")
        }
        for (k, n) in b {
            guard let e = a[k] else { continue }
            var changes: [String] = []
            if e.node.type != n.node.type { changes.append("type \(e.node.type) → \(n.node.type)") }
            if e.node.view != n.node.view { changes.append("view \(e.node.view) → \(n.node.view)") }
            if e.node.action != n.node.action { changes.append("action \(e.node.action ?? "(none)") → \(n.node.action ?? "(none)")") }
            propChanges(e.node.props, n.node.props, path: "props", into: &changes)
            if e.path != n.path { changes.append("moved from \(e.path)") }
            let order = { (f: Flat, m: OrderedDictionary<String, Flat>) -> [String] in
                m.values.filter { $0.parentKey == f.key }.map(\.key)
            }
            let eo = order(e, a).filter { b[$0] != nil }, no = order(n, b).filter { a[$0] != nil }
            if eo != no { changes.append("children reordered") }
            for c in changes { out.append("~ changed \(n.path): \(c)") }
        }
        return out
    }

    static func show(_ v: JSONValue?) -> String {
        guard let v else { return "(none)" }
        var s = JSONNormal.text(v)
        if s.count > 80 { s = String(s.prefix(77)) + "…" }
        return s
    }

    static func propChanges(_ a: JSONValue?, _ b: JSONValue?, path: String, into out: inout [String]) {
        switch (a, b) {
        case (.object(let x)?, .object(let y)?):
            for k in Set(x.keys).union(y.keys).sorted() {
                propChanges(x[k], y[k], path: path + "." + k, into: &out)
            }
        case (.array(let x)?, .array(let y)?):
            if x.count != y.count {
                out.append("\(path) \(x.count) entr\(x.count == 1 ? "y" : "ies") → \(y.count)")
            }
            for i in 0..<max(x.count, y.count) {
                propChanges(i < x.count ? x[i] : nil, i < y.count ? y[i] : nil, path: "\(path)[\(i)]", into: &out)
            }
        default:
            if let a, let b, JSONNormal.equivalent(a, b) { return }
            if a == nil && b == nil { return }
            out.append("\(path) \(show(a)) → \(show(b))")
        }
    }
}

/// A small line diff (longest common subsequence), for the parts of a snapshot that are text.
