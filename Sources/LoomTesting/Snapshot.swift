import Foundation
import LoomCore
import LoomPlugins
import OrderedCollections

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
        var s = (n.role.map { $0 + ": " } ?? "") + (n.isItem ? "• " : "") + n.type
        if let id = n.id { s += " " + idToken(id) }
        s += " " + (n.view.isEmpty ? "-" : n.view) + " " + JSONNormal.text(n.props)
        for e in n.extras { s += " " + e.key + " " + JSONNormal.text(e.value) }
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
        var role: String?
        for r in ["header", "footer"] where s.hasPrefix(r + ": ") {
            role = r
            s = s.dropFirst(r.count + 2)
        }
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
        var extras: [(key: String, value: JSONValue)] = []
        for key in SnapNode.extraKeys where s.hasPrefix(" \(key) ") {
            s = s.dropFirst(key.count + 2)
            guard let e = scanJSON(s), let v = JSONReader.parseValue(String(s[..<e])) else { return nil }
            extras.append((key, v))
            s = s[e...]
        }
        var action: String?
        if s.hasPrefix(" → ") { action = String(s.dropFirst(3)) } else if !s.isEmpty { return nil }
        return SnapNode(isItem: isItem, type: type, id: id, view: view, props: props, action: action, role: role, extras: extras)
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
