import LoomCore
import OrderedCollections

/// Output formats of `host graph`.
public enum GraphFormat: String, Sendable, Hashable, CaseIterable {
    case text, json, dot, mermaid
}

extension NavigationGraph {
    /// The graph in a format; deterministic byte for byte. JSON is pretty-printed.
    public func rendered(_ format: GraphFormat) -> String {
        switch format {
        case .text: return text(links: true)
        case .json: return json(links: true).serialized(pretty: true) + "\n"
        case .dot: return dot()
        case .mermaid: return mermaid()
        }
    }

    // MARK: Text

    /// Human readable: the entry, each node with its outgoing edges
    /// (`  ── movie (push) ──▶ movie_detail   e.g. movie:42`), gated edges marked `⚑`, then the
    /// findings as diagnostics.
    /// `onlyNodes`: list just these nodes (the others stay known for their flow labels).
    /// `links`: also list the deep links as entry edges (`host graph`).
    public func text(onlyNodes: Set<String>? = nil, links showLinks: Bool = false) -> String {
        let x = TextEscape.escaped
        var out = "navigation from \(x(entry.description))"
        if let entryFlow { out += " (flow \(x(entryFlow)))" }
        out += "\n"
        let byFrom = Dictionary(grouping: edges, by: \.from)
        let flowOf = Dictionary(nodes.map { ($0.id, $0.flow) }, uniquingKeysWith: { a, _ in a })
        for node in nodes where onlyNodes?.contains(node.id) ?? true {
            out += x(node.id)
            if let flow = node.flow { out += " [\(x(flow))]" }
            out += "\n"
            for e in byFrom[node.id] ?? [] {
                out += "  ── \(x(e.step.description)) (\(e.presentation.rawValue)) ──▶ \(x(e.to))"
                if let targetFlow = flowOf[e.to] ?? nil, targetFlow != node.flow { out += " [\(x(targetFlow))]" }
                if e.gated { out += " ⚑" }
                if let example = e.example { out += "   e.g. \(x(example.description))" }
                out += "\n"
            }
        }
        if showLinks && !links.isEmpty && onlyNodes == nil {
            out += "deep links (entry edges):\n"
            for l in links {
                if let failure = l.failure {
                    out += "  \(x(l.link)) ──▶ (cannot be opened) [\(x(l.flow))]   via \(x(l.steps)): \(x(failure))\n"
                } else {
                    out += "  \(x(l.link)) ──▶ \(x(l.to)) [\(x(l.flow))]   via \(x(l.steps))\n"
                }
            }
        }
        if edges.contains(where: \.gated) {
            out += "⚑ = reachable only because a rule passed for this user\n"
        }
        if !findings.isEmpty {
            out += "\nfindings:\n"
            for f in findings { out += "  \(TreeOutput.diagnosticLine(f.diagnostic, style: Style(color: false)))\n" }
        }
        return out
    }

    // MARK: JSON

    /// `{"entry", "entry_flow", "nodes": [{"id", "screen"?, "flow", "file"?}], "edges": [{"from",
    /// "to", "step", "presentation", "example"?, "gated", "flow"}], "findings": [{"kind",
    /// "severity", "message", "location"?}]}`. `screen` appears when it differs from `id`;
    /// `example` is `step:param`; `location` is `path:line:column`.
    public var json: JSONValue { json(links: false) }

    /// The same, with `"links"` (the deep links as entry edges: link, steps, flow, to) when
    /// `links` is set and the flows declare any.
    public func json(links showLinks: Bool) -> JSONValue {
        func optional(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }
        var root = OrderedDictionary<String, JSONValue>()
        root["entry"] = .string(entry)
        root["entry_flow"] = optional(entryFlow)
        root["nodes"] = .array(nodes.map { n in
            var o = OrderedDictionary<String, JSONValue>()
            o["id"] = .string(n.id)
            if n.screen != n.id { o["screen"] = .string(n.screen) }
            o["flow"] = optional(n.flow)
            if let file = n.file { o["file"] = .string(file) }
            return .object(o)
        })
        root["edges"] = .array(edges.map { e in
            var o = OrderedDictionary<String, JSONValue>()
            o["from"] = .string(e.from)
            o["to"] = .string(e.to)
            o["step"] = .string(e.step)
            o["presentation"] = .string(e.presentation.rawValue)
            if let example = e.example { o["example"] = .string(example) }
            if !e.exampleParams.isEmpty {
                o["params"] = .object(OrderedDictionary(uniqueKeysWithValues: e.exampleParams.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) }))
            }
            o["gated"] = .bool(e.gated)
            o["flow"] = optional(e.flow)
            return .object(o)
        })
        if showLinks && !links.isEmpty { root["links"] = .array(links.map(\.json)) }
        root["findings"] = .array(findings.map(\.json))
        return .object(root)
    }

    // MARK: DOT

    /// Graphviz: flows as `subgraph "cluster_<flow>"` labelled `flow (presentation)`, the entry
    /// with a double border, gated edges dashed.
    public func dot() -> String {
        var out = "digraph navigation {\n"
        out += "  rankdir=LR;\n"
        out += "  node [shape=box, style=rounded, fontname=\"Helvetica\"];\n"
        out += "  edge [fontname=\"Helvetica\", fontsize=10];\n"
        func nodeLine(_ n: Node, indent: String) -> String {
            var attrs: [String] = []
            if n.screen != n.id { attrs.append("label=\(GraphText.dotQuoted(n.screen))") }
            if n.id == entry { attrs.append("peripheries=2") }
            return indent + GraphText.dotQuoted(n.id) + (attrs.isEmpty ? "" : " [\(attrs.joined(separator: ", "))]") + ";\n"
        }
        for n in nodes where n.flow == nil { out += nodeLine(n, indent: "  ") }
        for flow in flowOrder {
            out += "  subgraph \(GraphText.dotQuoted("cluster_" + flow)) {\n"
            out += "    label=\(GraphText.dotQuoted(clusterLabel(flow)));\n"
            out += "    style=rounded;\n"
            for n in nodes where n.flow == flow { out += nodeLine(n, indent: "    ") }
            out += "  }\n"
        }
        for e in edges {
            var attrs = ["label=\(GraphText.dotQuoted("\(e.step) (\(e.presentation.rawValue))"))"]
            if e.gated { attrs.append("style=dashed") }
            out += "  \(GraphText.dotQuoted(e.from)) -> \(GraphText.dotQuoted(e.to)) [\(attrs.joined(separator: ", "))];\n"
        }
        // Deep links: entry edges from outside the app, dotted.
        let ids = Set(nodes.map(\.id))
        for (i, l) in links.enumerated() where ids.contains(l.to) {
            let id = GraphText.dotQuoted("link \(i + 1): \(l.link)")
            out += "  \(id) [shape=plaintext, label=\(GraphText.dotQuoted(l.link))];\n"
            out += "  \(id) -> \(GraphText.dotQuoted(l.to)) [style=dotted, label=\(GraphText.dotQuoted("deep link"))];\n"
        }
        out += "}\n"
        return out
    }

    // MARK: Mermaid

    /// `flowchart LR` with one `subgraph` per flow; ids sanitised to `n_<id>` / `f_<flow>`,
    /// labels quoted; gated edges dotted; the entry gets the `entry` class.
    public func mermaid() -> String {
        var nodeIds: [String: String] = [:]
        var used: Set<String> = []
        func unique(_ base: String) -> String {
            var candidate = base
            var n = 2
            while used.contains(candidate) {
                candidate = "\(base)_\(n)"
                n += 1
            }
            used.insert(candidate)
            return candidate
        }
        for n in nodes { nodeIds[n.id] = unique("n_" + GraphText.sanitised(n.id)) }
        var flowIds: [String: String] = [:]
        for f in flowOrder { flowIds[f] = unique("f_" + GraphText.sanitised(f)) }

        var out = "flowchart LR\n"
        func nodeLine(_ n: Node, indent: String) -> String {
            "\(indent)\(nodeIds[n.id]!)[\(GraphText.mermaidQuoted(n.screen))]\n"
        }
        for n in nodes where n.flow == nil { out += nodeLine(n, indent: "  ") }
        for flow in flowOrder {
            out += "  subgraph \(flowIds[flow]!)[\(GraphText.mermaidQuoted(clusterLabel(flow)))]\n"
            for n in nodes where n.flow == flow { out += nodeLine(n, indent: "    ") }
            out += "  end\n"
        }
        for e in edges {
            let arrow = e.gated ? "-.->" : "-->"
            out += "  \(nodeIds[e.from]!) \(arrow)|\(GraphText.mermaidQuoted("\(e.step) (\(e.presentation.rawValue))"))| \(nodeIds[e.to]!)\n"
        }
        for l in links {
            guard let target = nodeIds[l.to] else { continue }
            out += "  \(unique("l_" + GraphText.sanitised(l.link)))([\(GraphText.mermaidQuoted(l.link))]) -.->|\"deep link\"| \(target)\n"
        }
        if let entryId = nodeIds[entry] {
            out += "  classDef entry stroke-width:3px\n"
            out += "  class \(entryId) entry\n"
        }
        return out
    }

    /// Flows in order of their first node.
    var flowOrder: [String] {
        var seen = OrderedSet<String>()
        for n in nodes { if let f = n.flow { seen.append(f) } }
        return Array(seen)
    }

    func clusterLabel(_ flow: String) -> String {
        if let p = flowPresentations[flow] { return "\(flow) (\(p.rawValue))" }
        return flow
    }
}

extension NavigationGraph.Finding {
    /// `{"kind", "severity", "message", "location"?}`.
    public var json: JSONValue {
        var o = OrderedDictionary<String, JSONValue>()
        o["kind"] = .string(kind.rawValue)
        o["severity"] = .string(severity.rawValue)
        o["message"] = .string(message)
        if let location { o["location"] = .string(location.description) }
        return .object(o)
    }
}

enum GraphText {
    /// A DOT double-quoted ID: backslashes and quotes escaped, newlines as `\n`.
    static func dotQuoted(_ s: String) -> String {
        var out = "\""
        for ch in s.unicodeScalars {
            switch ch {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            case "\r": break
            default:
                // Other controls as `\u{1B}` (the backslash doubled for DOT).
                if TextEscape.isEscaped(ch) { out += "\\" + TextEscape.escaped(String(ch)) } else { out.unicodeScalars.append(ch) }
            }
        }
        return out + "\""
    }

    /// A Mermaid quoted label: quotes as `#quot;`, and the characters Mermaid reads as markup
    /// as entity codes.
    static func mermaidQuoted(_ s: String) -> String {
        var out = "\""
        for ch in s.unicodeScalars {
            switch ch {
            case "\"": out += "#quot;"
            case "#": out += "#35;"
            case "<": out += "#lt;"
            case ">": out += "#gt;"
            case "|": out += "#124;"
            case "\n", "\r": out += " "
            default:
                if TextEscape.isEscaped(ch) { out += TextEscape.escaped(String(ch)) } else { out.unicodeScalars.append(ch) }
            }
        }
        return out + "\""
    }

    /// Letters, digits and `_` kept; anything else becomes `_`.
    static func sanitised(_ s: String) -> String {
        var out = ""
        for ch in s.unicodeScalars {
            if ch.isASCII, ch.properties.isAlphabetic || ("0"..."9").contains(ch) || ch == "_" {
                out.unicodeScalars.append(ch)
            } else {
                out += "_"
            }
        }
        return out
    }
}
