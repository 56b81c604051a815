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

/// JSON helpers: key-sorted normal form and equivalence (numbers by value, objects unordered).
enum JSONNormal {
    static func sorted(_ v: JSONValue) -> JSONValue {
        switch v {
        case .object(let o):
            var out = OrderedDictionary<String, JSONValue>()
            for k in o.keys.sorted() { out[k] = sorted(o[k]!) }
            return .object(out)
        case .array(let a): return .array(a.map(sorted))
        default: return v
        }
    }

    static func equivalent(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.int(let x), .double(let y)), (.double(let y), .int(let x)): return Double(x) == y
        case (.object(let x), .object(let y)):
            guard x.count == y.count else { return false }
            for (k, v) in x {
                guard let w = y[k], equivalent(v, w) else { return false }
            }
            return true
        case (.array(let x), .array(let y)):
            guard x.count == y.count else { return false }
            return zip(x, y).allSatisfy { equivalent($0, $1) }
        default: return a == b
        }
    }

    /// Compact, key-sorted JSON text.
    static func text(_ v: JSONValue) -> String { sorted(v).serialized(pretty: false) }
}

/// The golden file of one `expect_snapshot`: a stable, diff-friendly text of the resolved tree
/// (one node a line, two spaces of indentation per level, `type #id View {sorted props} → action`,
/// items marked `• `) and the navigation graph of the user.
struct SnapshotDocument: Sendable, Equatable {
    var screen: String
    var user: String
    var stack: String
    var tree: SnapNode?
    var diagnostics: [String]
    var graph: String

    static let header = "# loom snapshot: re-record with `host test --update`, review pending ones with `host test --accept`"

    var text: String {
        var out = SnapshotDocument.header + "\n"
        out += "screen: \(screen)\n"
        out += "user: \(user)\n"
        out += "stack: \(stack)\n"
        out += "\ntree:\n"
        if let tree { SnapshotDocument.render(tree, depth: 0, into: &out) } else { out += "(nothing visible: the root is hidden)\n" }
        if !diagnostics.isEmpty {
            out += "\ndiagnostics:\n"
            for d in diagnostics { out += d + "\n" }
        }
        out += "\ngraph:\n"
        out += graph
        if !out.hasSuffix("\n") { out += "\n" }
        return out
    }

    static func idToken(_ id: String) -> String {
        let plain = !id.isEmpty && id.unicodeScalars.allSatisfy { c in
            (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || (c >= "0" && c <= "9") || c == "_" || c == "-" || c == "." || c == ":"
        }
        return "#" + (plain ? id : JSONValue.string(id).serialized(pretty: false))
    }

    static func line(_ n: SnapNode) -> String {
        var s = (n.isItem ? "• " : "") + n.type
        if let id = n.id { s += " " + idToken(id) }
        s += " " + (n.view.isEmpty ? "-" : n.view) + " " + JSONNormal.text(n.props)
        if let a = n.action { s += " → " + a }
        return s
    }

    static func render(_ n: SnapNode, depth: Int, into out: inout String) {
        out += String(repeating: "  ", count: depth) + line(n) + "\n"
        for c in n.children { render(c, depth: depth + 1, into: &out) }
    }

    // MARK: Parsing (for the structural diff)

    /// Parses a snapshot file; nil when it is not in this format (hand-edited, older format).
    static func parse(_ text: String) -> SnapshotDocument? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var doc = SnapshotDocument(screen: "", user: "", stack: "", tree: nil, diagnostics: [], graph: "")
        var section = "head"
        var treeLines: [String] = []
        var graphLines: [String] = []
        for l in lines {
            switch section {
            case "head":
                if l.hasPrefix("screen: ") { doc.screen = String(l.dropFirst(8)) }
                else if l.hasPrefix("user: ") { doc.user = String(l.dropFirst(6)) }
                else if l.hasPrefix("stack: ") { doc.stack = String(l.dropFirst(7)) }
                else if l == "tree:" { section = "tree" }
            case "tree":
                if l == "diagnostics:" { section = "diagnostics" }
                else if l == "graph:" { section = "graph" }
                else if !l.isEmpty { treeLines.append(l) }
            case "diagnostics":
                if l == "graph:" { section = "graph" } else if !l.isEmpty { doc.diagnostics.append(l) }
            default:
                graphLines.append(l)
            }
        }
        guard section == "graph" else { return nil }
        doc.graph = graphLines.joined(separator: "\n")
        if treeLines.count == 1, treeLines[0].hasPrefix("(nothing visible") { return doc }
        // Depth from indentation; build the tree with a stack of open nodes.
        var stack: [SnapNode] = []
        var root: SnapNode?
        func popOne() -> Bool {
            let n = stack.removeLast()
            if stack.isEmpty {
                if root != nil { return false }
                root = n
            } else {
                stack[stack.count - 1].children.append(n)
            }
            return true
        }
        for l in treeLines {
            var depth = 0
            var rest = Substring(l)
            while rest.hasPrefix("  ") { depth += 1; rest = rest.dropFirst(2) }
            guard let node = parseLine(String(rest)), depth <= stack.count else { return nil }
            while stack.count > depth { guard popOne() else { return nil } }
            if depth == 0 && root != nil { return nil }
            stack.append(node)
        }
        while !stack.isEmpty { guard popOne() else { return nil } }
        doc.tree = root
        return doc
    }

    static func parseLine(_ line: String) -> SnapNode? {
        var s = Substring(line)
        var isItem = false
        if s.hasPrefix("• ") { isItem = true; s = s.dropFirst(2) }
        func token() -> String? {
            guard let sp = s.firstIndex(of: " ") else { return nil }
            let t = String(s[..<sp])
            s = s[s.index(after: sp)...]
            return t
        }
        guard let type = token() else { return nil }
        var id: String?
        if s.hasPrefix("#\"") {
            // A JSON string id.
            let body = s.dropFirst()
            guard let end = scanJSON(body) else { return nil }
            guard case .string(let v)? = JSONReader.parseValue(String(body[..<end])) else { return nil }
            id = v
            s = body[end...]
            guard s.hasPrefix(" ") else { return nil }
            s = s.dropFirst()
        } else if s.hasPrefix("#") {
            guard let t = token() else { return nil }
            id = String(t.dropFirst())
        }
        guard var view = token() else { return nil }
        if view == "-" { view = "" }
        guard let end = scanJSON(s), let props = JSONReader.parseValue(String(s[..<end])) else { return nil }
        s = s[end...]
        var action: String?
        if s.hasPrefix(" → ") { action = String(s.dropFirst(3)) } else if !s.isEmpty { return nil }
        return SnapNode(isItem: isItem, type: type, id: id, view: view, props: props, action: action)
    }

    /// The end of the JSON value (object, array or string) starting at `s.startIndex`.
    static func scanJSON(_ s: Substring) -> Substring.Index? {
        var depth = 0
        var inString = false
        var escaped = false
        var i = s.startIndex
        while i < s.endIndex {
            let c = s[i]
            if inString {
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" {
                    inString = false
                    if depth == 0 { return s.index(after: i) }
                }
            } else if c == "\"" {
                inString = true
            } else if c == "{" || c == "[" {
                depth += 1
            } else if c == "}" || c == "]" {
                depth -= 1
                if depth == 0 { return s.index(after: i) }
            }
            i = s.index(after: i)
        }
        return nil
    }
}

/// Spots-style structural diff of two snapshot trees: nodes matched by identity (their id,
/// else their path), reported as added, removed, changed (with the props that changed), moved.
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
enum LineDiff {
    /// `- line` / `+ line` for the lines that differ, in order.
    static func diff(_ a: [String], _ b: [String]) -> [String] {
        let n = a.count, m = b.count
        if n * m > 4_000_000 { return a.map { "- " + $0 } + b.map { "+ " + $0 } }
        var lcs = [[Int]](repeating: [Int](repeating: 0, count: m + 1), count: n + 1)
        if n > 0 && m > 0 {
            for i in stride(from: n - 1, through: 0, by: -1) {
                for j in stride(from: m - 1, through: 0, by: -1) {
                    lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : max(lcs[i + 1][j], lcs[i][j + 1])
                }
            }
        }
        var out: [String] = []
        var i = 0, j = 0
        while i < n || j < m {
            if i < n, j < m, a[i] == b[j] {
                i += 1; j += 1
            } else if j < m, i == n || lcs[i][j + 1] >= lcs[i + 1][j] {
                out.append("+ " + b[j]); j += 1
            } else {
                out.append("- " + a[i]); i += 1
            }
        }
        return out
    }
}

extension SnapshotDocument {
    /// A readable explanation of how `actual` differs from `self` (the golden).
    func differences(to actual: SnapshotDocument) -> [String] {
        var out: [String] = []
        if screen != actual.screen { out.append("~ screen: \(screen) → \(actual.screen)") }
        if user != actual.user { out.append("~ user: \(user) → \(actual.user)") }
        if stack != actual.stack { out.append("~ stack: \(stack) → \(actual.stack)") }
        out += StructuralDiff.diff(expected: tree, actual: actual.tree)
        let dd = LineDiff.diff(diagnostics, actual.diagnostics)
        if !dd.isEmpty { out.append("diagnostics:"); out += dd.map { "  " + $0 } }
        let gd = LineDiff.diff(graph.split(separator: "\n").map(String.init), actual.graph.split(separator: "\n").map(String.init))
        if !gd.isEmpty { out.append("graph:"); out += gd.map { "  " + $0 } }
        return out
    }
}
