import OrderedCollections
import Synchronization

/// Terminal styling: colour only on a terminal and never with NO_COLOR (the CLI decides).
public struct Style: Sendable {
    public var color: Bool
    public init(color: Bool) { self.color = color }
    func wrap(_ s: String, _ code: String) -> String { color ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }
    public func bold(_ s: String) -> String { wrap(s, "1") }
    public func dim(_ s: String) -> String { wrap(s, "2") }
    public func type(_ s: String) -> String { wrap(s, "36") }
    public func view(_ s: String) -> String { wrap(s, "33") }
    public func id(_ s: String) -> String { wrap(s, "35") }
    public func hidden(_ s: String) -> String { wrap(s, "31") }
    public func ok(_ s: String) -> String { wrap(s, "32") }
    public func error(_ s: String) -> String { wrap(s, "1;31") }
    public func warning(_ s: String) -> String { wrap(s, "1;33") }
}

/// Frames to show beside nodes (`host run --layout`), by node or item path: the JSON value
/// (`{x, y, width, height}`) and the text form (`@ 16,88 343×44`). Made by the layout pass.
public struct TreeFrames: Sendable {
    public var byPath: [String: (json: JSONValue, text: String)]
    public init(byPath: [String: (json: JSONValue, text: String)] = [:]) { self.byPath = byPath }
}

public enum TreeOutput {
    // MARK: JSON

    /// A node as `--format json` prints it; rule traces only with `explain`.
    public static func json(_ n: ResolvedNode, explain: Bool = false, frames: TreeFrames? = nil) -> JSONValue {
        var o: OrderedDictionary<String, JSONValue> = ["type": .string(n.type)]
        if let id = n.id { o["id"] = .string(id) }
        if n.hidden {
            o["hidden"] = .bool(true)
            if let r = n.hiddenReason { o["reason"] = .string(r) }
        } else {
            o["view"] = .string(n.view)
            o["props"] = n.props
            if let f = frames?.byPath[n.path] { o["frame"] = f.json }
            if let m = n.extraMeta { o["extra_meta"] = m }
            if let rs = n.resolvedStyle {
                o["style"] = rs.values
                if explain {
                    o["style_names"] = .array(rs.names.map { .string($0) })
                    o["style_provenance"] = styleProvenanceJSON(rs)
                }
            } else if let st = n.style {
                o["style"] = st
            }
        }
        if explain, let r = n.rule { o["rule"] = r.json }
        if explain, let b = n.origin?.bindings { o["bindings"] = bindingsJSON(b) }
        if explain, n.isCreated { o["created_at"] = .string(n.location.description) }
        if let h = n.header { o["header"] = partJSON(h, explain: explain, frames: frames) }
        if !n.children.isEmpty { o["children"] = .array(n.children.map { json($0, explain: explain, frames: frames) }) }
        if let items = n.items, !n.hidden { o["items"] = .array(items.map { json($0, explain: explain, frames: frames) }) }
        if let f = n.footer { o["footer"] = partJSON(f, explain: explain, frames: frames) }
        if let a = n.action { o["action"] = .string(a) }
        return .object(o)
    }

    /// A member of a JSON object `serialized(_:pretty:)` writes: a value, or a resolved tree
    /// written as `json(_:explain:frames:)` gives it.
    public enum JSONMember {
        case value(JSONValue)
        case tree(ResolvedNode, explain: Bool, frames: TreeFrames?)
    }

    /// The JSON text of an object of `members` (in order), the text
    /// `JSONValue.object(…).serialized(pretty:)` gives with each tree made by `json(_:explain:frames:)`,
    /// byte for byte; a tree is written node by node, with no `JSONValue` made for it (`host
    /// serve` and `host run --format json` write one per answer).
    public static func serialized(_ members: [(key: String, value: JSONMember)], pretty: Bool = true) -> String {
        var w = JSONTextWriter(pretty: pretty, indent: Array("  ".utf8))
        w.out.reserveCapacity(16_384)
        w.out.append(UInt8(ascii: "{"))
        var first = true
        for (key, value) in members {
            w.member(key, first: &first, level: 0)
            switch value {
            case .value(let v): w.write(v, level: 1)
            case .tree(let n, let explain, let frames):
                // A tree given again (the resolution's and the strings' caches hand out the same
                // nodes for a repeated request) has the same text: kept, without frames.
                if frames == nil, let kept = TreeTexts.shared.find(n, explain: explain, pretty: pretty) {
                    w.out.append(contentsOf: kept)
                } else {
                    let start = w.out.count
                    write(n, explain: explain, frames: frames, into: &w, level: 1)
                    if frames == nil { TreeTexts.shared.keep(n, explain: explain, pretty: pretty, text: Array(w.out[start...])) }
                }
            }
        }
        w.close(UInt8(ascii: "}"), empty: first, level: 0)
        return String(decoding: w.out, as: UTF8.self)
    }

    /// `json(n, …)` written into `w` at `level`: the same members in the same order.
    static func write(_ n: ResolvedNode, explain: Bool, frames: TreeFrames?, into w: inout JSONTextWriter, level: Int) {
        w.out.append(UInt8(ascii: "{"))
        var first = true
        w.member("type", first: &first, level: level)
        w.writeString(n.type)
        if let id = n.id { w.member("id", first: &first, level: level); w.writeString(id) }
        if n.hidden {
            w.member("hidden", first: &first, level: level)
            w.append("true")
            if let r = n.hiddenReason { w.member("reason", first: &first, level: level); w.writeString(r) }
        } else {
            w.member("view", first: &first, level: level)
            w.writeString(n.view)
            w.member("props", first: &first, level: level)
            w.write(n.props, level: level + 1)
            if let f = frames?.byPath[n.path] { w.member("frame", first: &first, level: level); w.write(f.json, level: level + 1) }
            if let m = n.extraMeta { w.member("extra_meta", first: &first, level: level); w.write(m, level: level + 1) }
            if let rs = n.resolvedStyle {
                w.member("style", first: &first, level: level)
                w.write(rs.values, level: level + 1)
                if explain {
                    w.member("style_names", first: &first, level: level)
                    w.write(.array(rs.names.map { .string($0) }), level: level + 1)
                    w.member("style_provenance", first: &first, level: level)
                    w.write(styleProvenanceJSON(rs), level: level + 1)
                }
            } else if let st = n.style {
                w.member("style", first: &first, level: level)
                w.write(st, level: level + 1)
            }
        }
        if explain, let r = n.rule { w.member("rule", first: &first, level: level); w.write(r.json, level: level + 1) }
        if explain, let b = n.origin?.bindings { w.member("bindings", first: &first, level: level); w.write(bindingsJSON(b), level: level + 1) }
        if explain, n.isCreated { w.member("created_at", first: &first, level: level); w.writeString(n.location.description) }
        if let h = n.header { w.member("header", first: &first, level: level); writePart(h, explain: explain, frames: frames, into: &w, level: level + 1) }
        if !n.children.isEmpty {
            w.member("children", first: &first, level: level)
            write(n.children, explain: explain, frames: frames, into: &w, level: level + 1)
        }
        if let items = n.items, !n.hidden {
            w.member("items", first: &first, level: level)
            w.array(items, level: level + 1) { write($1, explain: explain, frames: frames, into: &$0, level: $2) }
        }
        if let f = n.footer { w.member("footer", first: &first, level: level); writePart(f, explain: explain, frames: frames, into: &w, level: level + 1) }
        if let a = n.action { w.member("action", first: &first, level: level); w.writeString(a) }
        w.close(UInt8(ascii: "}"), empty: first, level: level)
    }

    /// Nodes as an array at `level` (`[]` when there are none).
    static func write(_ nodes: [ResolvedNode], explain: Bool, frames: TreeFrames?, into w: inout JSONTextWriter, level: Int) {
        w.array(nodes, level: level) { write($1, explain: explain, frames: frames, into: &$0, level: $2) }
    }

    /// `partJSON` written into `w`.
    static func writePart(_ n: ResolvedNode, explain: Bool, frames: TreeFrames?, into w: inout JSONTextWriter, level: Int) {
        if let i = n.asItem { return write(i, explain: explain, frames: frames, into: &w, level: level) }
        write(n, explain: explain, frames: frames, into: &w, level: level)
    }

    /// `json(i, …)` written into `w` at `level`: the same members in the same order.
    static func write(_ i: ResolvedItem, explain: Bool, frames: TreeFrames?, into w: inout JSONTextWriter, level: Int) {
        w.out.append(UInt8(ascii: "{"))
        var first = true
        if let k = i.kind { w.member("kind", first: &first, level: level); w.writeString(k) }
        if let id = i.id { w.member("id", first: &first, level: level); w.writeString(id) }
        if i.hidden {
            w.member("hidden", first: &first, level: level)
            w.append("true")
            if let t = i.title { w.member("title", first: &first, level: level); w.writeString(t) }
            if let r = i.hiddenReason { w.member("reason", first: &first, level: level); w.writeString(r) }
        } else {
            w.member("view", first: &first, level: level)
            w.writeString(i.view)
            w.member("props", first: &first, level: level)
            w.write(i.props, level: level + 1)
            if let sz = i.size { w.member("size", first: &first, level: level); w.write(sz, level: level + 1) }
            if let f = frames?.byPath[i.path] { w.member("frame", first: &first, level: level); w.write(f.json, level: level + 1) }
        }
        if explain, let r = i.rule { w.member("rule", first: &first, level: level); w.write(r.json, level: level + 1) }
        if explain, let b = i.origin?.bindings { w.member("bindings", first: &first, level: level); w.write(bindingsJSON(b), level: level + 1) }
        if !i.children.isEmpty {
            w.member("children", first: &first, level: level)
            write(i.children, explain: explain, frames: frames, into: &w, level: level + 1)
        }
        if let a = i.action { w.member("action", first: &first, level: level); w.writeString(a) }
        w.close(UInt8(ascii: "}"), empty: first, level: level)
    }

    /// A header or footer: a node object, or an item object when it was read as an item (Spots).
    static func partJSON(_ n: ResolvedNode, explain: Bool, frames: TreeFrames?) -> JSONValue {
        if let i = n.asItem { return json(i, explain: explain, frames: frames) }
        return json(n, explain: explain, frames: frames)
    }

    public static func json(_ i: ResolvedItem, explain: Bool = false, frames: TreeFrames? = nil) -> JSONValue {
        var o: OrderedDictionary<String, JSONValue> = [:]
        if let k = i.kind { o["kind"] = .string(k) }
        if let id = i.id { o["id"] = .string(id) }
        if i.hidden {
            o["hidden"] = .bool(true)
            if let t = i.title { o["title"] = .string(t) }
            if let r = i.hiddenReason { o["reason"] = .string(r) }
        } else {
            o["view"] = .string(i.view)
            o["props"] = i.props
            if let sz = i.size { o["size"] = sz }
            if let f = frames?.byPath[i.path] { o["frame"] = f.json }
        }
        if explain, let r = i.rule { o["rule"] = r.json }
        if explain, let b = i.origin?.bindings { o["bindings"] = bindingsJSON(b) }
        if !i.children.isEmpty { o["children"] = .array(i.children.map { json($0, explain: explain, frames: frames) }) }
        if let a = i.action { o["action"] = .string(a) }
        return .object(o)
    }

    public static func diagnosticsJSON(_ d: [Diagnostic]) -> JSONValue {
        .array(d.map { x in
            var o: OrderedDictionary<String, JSONValue> = ["severity": .string(x.severity.rawValue)]
            if let l = x.location {
                o["file"] = .string(l.file)
                if l.line > 0 { o["line"] = .int(l.line) }
                if l.column > 0 { o["column"] = .int(l.column) }
            }
            o["message"] = .string(x.message)
            if let fix = x.fix { o["fix"] = .string(fix) }
            return .object(o)
        })
    }

    // MARK: Text

    /// `key=value` for the first props, compact.
    static func propsSummary(_ props: JSONValue, limit: Int = 6) -> String {
        guard case .object(let o) = props, !o.isEmpty else { return "" }
        var parts: [String] = []
        for (k, v) in o.prefix(limit) {
            var s: String
            switch v {
            case .string(let x): s = "\"" + TextEscape.escaped(x) + "\""
            case .array(let a): s = a.isEmpty ? "[]" : TextEscape.escaped(v.serialized(pretty: false))
            default: s = TextEscape.escaped(v.serialized(pretty: false))
            }
            if s.count > 48 { s = String(s.prefix(45)) + "…" + (s.hasPrefix("[") ? "]" : s.hasPrefix("{") ? "}" : "") }
            parts.append("\(TextEscape.escaped(k))=\(s)")
        }
        if o.count > limit { parts.append("+\(o.count - limit) more") }
        return parts.joined(separator: " ")
    }

    public static func text(_ r: Resolution, style: Style, explain: Bool = false, frames: TreeFrames? = nil) -> String {
        let e = TextEscape.escaped
        var out = style.bold("screen \(e(r.screen))") + style.dim("  user \(e(r.user.name ?? "(anonymous)"))") + "\n"
        guard let tree = r.tree else {
            out += style.hidden("(nothing visible: the root is hidden)") + "\n"
            return out
        }
        line(tree, prefix: "", isLast: true, isRoot: true, style: style, explain: explain, frames: frames, out: &out)
        return out
    }

    /// `{"meta.text": "restaurants[2].name", …}`: where each bound value came from (`--explain`).
    static func bindingsJSON(_ b: OrderedDictionary<String, String>) -> JSONValue {
        .object(b.mapValues { .string($0) })
    }

    /// `meta.text ← restaurants[2].name`, one line per bound field (`--explain`).
    static func bindingLines(_ b: OrderedDictionary<String, String>, prefix: String, style: Style, out: inout String) {
        for (field, source) in b {
            out += prefix + style.dim(TextEscape.escaped(field) + " ← " + TextEscape.escaped(source)) + "\n"
        }
    }

    /// `{key: {"from": "file:line", "overrode": ["file:line", …]}}` (`--explain`).
    static func styleProvenanceJSON(_ rs: NodeStyle) -> JSONValue {
        var o = OrderedDictionary<String, JSONValue>(minimumCapacity: rs.origins.count)
        for x in rs.origins {
            o[x.key] = .object(["from": .string(x.from), "overrode": .array(x.overrode.map { .string($0) })])
        }
        return .object(o)
    }

    /// `key ← file:line (overrode file:line, …)`, one line per key (`--explain`).
    static func styleExplainLines(_ rs: NodeStyle, prefix: String, style: Style, out: inout String) {
        let e = TextEscape.escaped
        for x in rs.origins {
            var s = e(x.key) + " ← " + e(x.from)
            if !x.overrode.isEmpty { s += " (overrode " + x.overrode.map(e).joined(separator: ", ") + ")" }
            out += prefix + style.dim(s) + "\n"
        }
    }

    /// Compact one-line JSON of a value kept as written (`style`, `size`, `extra_meta`).
    public static func compact(_ v: JSONValue) -> String {
        var s = TextEscape.escaped(v.serialized(pretty: false))
        if s.count > 60 { s = String(s.prefix(57)) + "…" }
        return s
    }

    static func line(_ n: ResolvedNode, prefix: String, isLast: Bool, isRoot: Bool, style: Style, explain: Bool,
                     frames: TreeFrames? = nil, out: inout String, role: String? = nil) {
        let branch = isRoot ? "" : (isLast ? "└─ " : "├─ ")
        let e = TextEscape.escaped
        var s = prefix + branch + (role.map { style.dim($0 + ": ") } ?? "") + style.type(e(n.type))
        if let id = n.id { s += " " + style.id("#" + e(id)) }
        if n.hidden {
            s += "  " + style.hidden("hidden: " + e(n.hiddenReason ?? ""))
        } else {
            s += "  " + style.view(e(n.view))
            let p = propsSummary(n.props)
            if !p.isEmpty { s += "  " + p }
            if let f = frames?.byPath[n.path] { s += "  " + f.text }
        }
        if let a = n.action { s += style.dim("  → " + e(a)) }
        if explain, let r = n.rule { s += style.dim("  [rule " + e(r.expression) + " = " + ruleValue(r) + "]") }
        if explain, n.isCreated { s += style.dim("  [created at " + e(n.location.description) + "]") }
        out += s + "\n"
        let childPrefix = prefix + (isRoot ? "" : (isLast ? "   " : "│  "))
        if !n.hidden, let rs = n.resolvedStyle {
            out += childPrefix + "    " + style.dim("style: " + (rs.line.isEmpty ? "(no values)" : e(rs.line))) + "\n"
            if explain { styleExplainLines(rs, prefix: childPrefix + "      ", style: style, out: &out) }
        } else if !n.hidden, let st = n.style {
            out += childPrefix + "    " + style.dim("style: " + compact(st)) + "\n"
        }
        if !n.hidden, let m = n.extraMeta { out += childPrefix + "    " + style.dim("extra meta: " + compact(m)) + "\n" }
        if explain, let b = n.origin?.bindings { bindingLines(b, prefix: childPrefix + "    ", style: style, out: &out) }
        if explain, let t = n.rule, !t.children.isEmpty {
            explainLines(t, prefix: childPrefix + "    ", style: style, out: &out)
        }
        let items = n.hidden ? [] : (n.items ?? [])
        let total = n.children.count + items.count + (n.header == nil ? 0 : 1) + (n.footer == nil ? 0 : 1)
        var k = 0
        if let h = n.header {
            k += 1
            if let hi = h.asItem {
                itemLine(hi, prefix: childPrefix, isLast: k == total, style: style, explain: explain, frames: frames, out: &out, role: "header")
            } else {
                line(h, prefix: childPrefix, isLast: k == total, isRoot: false, style: style, explain: explain, frames: frames, out: &out, role: "header")
            }
        }
        for c in n.children {
            k += 1
            line(c, prefix: childPrefix, isLast: k == total, isRoot: false, style: style, explain: explain, frames: frames, out: &out)
        }
        for i in items {
            k += 1
            itemLine(i, prefix: childPrefix, isLast: k == total, style: style, explain: explain, frames: frames, out: &out)
        }
        if let f = n.footer {
            if let fi = f.asItem {
                itemLine(fi, prefix: childPrefix, isLast: true, style: style, explain: explain, frames: frames, out: &out, role: "footer")
            } else {
                line(f, prefix: childPrefix, isLast: true, isRoot: false, style: style, explain: explain, frames: frames, out: &out, role: "footer")
            }
        }
    }

    /// One item's line (`• kind #id  View  props  → action`), its rule trace and nested
    /// components; `role` (`header` / `footer`) for a header or footer read as an item.
    static func itemLine(_ i: ResolvedItem, prefix childPrefix: String, isLast last: Bool, style: Style, explain: Bool,
                         frames: TreeFrames?, out: inout String, role: String? = nil) {
        let e = TextEscape.escaped
        var s = childPrefix + (last ? "└─ " : "├─ ") + (role.map { style.dim($0 + ": ") } ?? "") + "• " + style.type(e(i.kind ?? "item"))
        if let id = i.id { s += " " + style.id("#" + e(id)) }
        if i.hidden {
            if let t = i.title { s += " \"\(e(t))\"" }
            s += "  " + style.hidden("hidden: " + e(i.hiddenReason ?? ""))
        } else {
            s += "  " + style.view(e(i.view))
            let p = propsSummary(i.props, limit: 4)
            if !p.isEmpty { s += "  " + p }
            if let sz = i.size { s += "  " + style.dim("size " + compact(sz)) }
            if let f = frames?.byPath[i.path] { s += "  " + f.text }
        }
        if let a = i.action { s += style.dim("  → " + e(a)) }
        if explain, let r = i.rule { s += style.dim("  [rule " + e(r.expression) + " = " + ruleValue(r) + "]") }
        out += s + "\n"
        let ip = childPrefix + (last ? "   " : "│  ")
        if explain, let b = i.origin?.bindings { bindingLines(b, prefix: ip + "    ", style: style, out: &out) }
        if explain, let t = i.rule, !t.children.isEmpty {
            explainLines(t, prefix: ip + "    ", style: style, out: &out)
        }
        for (j, c) in i.children.enumerated() {
            line(c, prefix: ip, isLast: j == i.children.count - 1, isRoot: false, style: style, explain: explain, frames: frames,
                 out: &out)
        }
    }

    static func ruleValue(_ t: RuleTrace) -> String {
        if t.skipped { return "skipped" }
        if let v = t.value { return v ? "true" : "false" }
        return "error" + (t.error.map { ": " + TextEscape.escaped($0) } ?? "")
    }

    static func explainLines(_ t: RuleTrace, prefix: String, style: Style, out: inout String) {
        for c in t.children {
            out += prefix + style.dim("· \(TextEscape.escaped(c.expression)) = \(ruleValue(c))") + "\n"
            if !c.children.isEmpty { explainLines(c, prefix: prefix + "  ", style: style, out: &out) }
        }
    }

    public static func diagnosticLine(_ d: Diagnostic, style: Style) -> String {
        let sev = d.severity == .error ? style.error("error:") : d.severity == .warning ? style.warning("warning:") : style.dim("note:")
        var message = TextEscape.escaped(d.message)
        if let fix = d.fix { message += "; fix: " + TextEscape.escaped(fix) }
        if let l = d.location { return "\(TextEscape.escaped(l.description)): \(sev) \(message)" }
        return "\(sev) \(message)"
    }
}

/// The JSON text of the trees `TreeOutput.serialized` wrote last (as a member of the answer's
/// object), by node: the same node (`ResolvedNode.isSameNode`: the same immutable storage, so
/// the same nodes below, and the same explain marks; kept alive here, so an identity is never
/// reused while kept) with the same `explain` and form has the same text. At most `capacity`
/// trees, most recent first, and at most `maxBytes` of text in all (a larger tree is not kept).
final class TreeTexts: Sendable {
    struct Entry: Sendable {
        var node: ResolvedNode
        var explain: Bool
        var pretty: Bool
        var text: [UInt8]
    }
    static let capacity = 16
    static let maxBytes = 4 << 20
    static let shared = TreeTexts()
    private let entries = Mutex<(list: [Entry], bytes: Int)>(([], 0))

    func find(_ node: ResolvedNode, explain: Bool, pretty: Bool) -> [UInt8]? {
        entries.withLock { e in
            guard let i = e.list.firstIndex(where: { $0.node.isSameNode(as: node) && $0.explain == explain && $0.pretty == pretty }) else { return nil }
            if i > 0 { e.list.insert(e.list.remove(at: i), at: 0) }
            return e.list[0].text
        }
    }

    func keep(_ node: ResolvedNode, explain: Bool, pretty: Bool, text: [UInt8]) {
        guard text.count <= TreeTexts.maxBytes / 4 else { return }
        entries.withLock { e in
            e.list.insert(Entry(node: node, explain: explain, pretty: pretty, text: text), at: 0)
            e.bytes += text.count
            while e.list.count > TreeTexts.capacity || e.bytes > TreeTexts.maxBytes {
                e.bytes -= e.list.removeLast().text.count
            }
        }
    }
}
