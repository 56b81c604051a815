import LoomCore
import LoomWorkspace
import OrderedCollections

/// What `host plugins` prints: every registration with its plugin, and the load errors.
struct PluginListing {
    struct Row {
        var kind, name, plugin, version, location, description: String
        /// What a rule's arguments or a component's meta fields are (`host docs NAME` has the rest).
        var arguments: [Argument] = []
    }

    struct Argument {
        var name, type: String
        var required: Bool
        var defaultValue: JSONValue?
        var description: String
    }

    /// A rule's declared arguments: one row per field of an object, else one for the whole value.
    static func arguments(_ a: ArgumentSchema?) -> [Argument] {
        guard let a else { return [] }
        if case .object(let fields) = a.kind, !fields.isEmpty {
            return fields.map { Argument(name: $0.key, type: ArgumentValidator.expectation($0.value), required: $0.value.required, defaultValue: $0.value.defaultValue, description: $0.value.description ?? "") }
        }
        return [Argument(name: "(arguments)", type: ArgumentValidator.expectation(a), required: a.required, defaultValue: a.defaultValue, description: a.description ?? "")]
    }

    var rows: [Row] = []
    var plugins: [(name: String, version: String, file: String, loaded: Bool)]
    var diagnostics: Diagnostics

    init(_ ws: Workspace) {
        let f = ws.factory
        for (kind, name) in f.order {
            switch kind {
            case "component":
                let r = f.components[name]!
                let n = r.aliases.isEmpty ? name : "\(name) (alias \(r.aliases.joined(separator: ", ")))"
                let meta = (r.meta?.fields ?? [:]).map { Argument(name: "meta." + $0.key, type: $0.value.description, required: false, description: "") }
                rows.append(Row(kind: r.kind.rawValue, name: n, plugin: r.plugin.name, version: r.plugin.version, location: r.location.description, description: r.description ?? "", arguments: meta))
            case "item":
                let r = f.items[name]!
                rows.append(Row(kind: "item", name: name, plugin: r.plugin.name, version: r.plugin.version, location: r.location.description, description: ""))
            default:
                let r = f.rules[name]!
                rows.append(Row(kind: "rule", name: name, plugin: r.plugin.name, version: r.plugin.version, location: r.location.description, description: r.description ?? "", arguments: Self.arguments(r.arguments)))
            }
        }
        for fl in ws.pluginHost.registeredFlows {
            rows.append(Row(kind: "flow", name: fl.name, plugin: fl.plugin.name, version: fl.plugin.version, location: fl.location.description, description: ""))
        }
        plugins = ws.pluginHost.plugins.map { ($0.info.name, $0.info.version, $0.file, $0.loaded) }
        diagnostics = ws.loadDiagnostics
    }

    func rendered(_ format: OutputFormat) -> String {
        switch format {
        case .text: return text
        case .json: return json.serialized(pretty: true) + "\n"
        }
    }

    /// A table; names and versions come from plugins, so every cell is escaped.
    var text: String {
        let e = TextEscape.escaped
        let rows = self.rows.map { Row(kind: e($0.kind), name: e($0.name), plugin: e($0.plugin), version: e($0.version), location: e($0.location), description: e($0.description),
                                       arguments: $0.arguments.map { Argument(name: e($0.name), type: e($0.type), required: $0.required, defaultValue: $0.defaultValue, description: e($0.description)) }) }
        var out = ""
        let wKind = max(4, rows.map(\.kind.count).max() ?? 0)
        let wName = max(4, rows.map(\.name.count).max() ?? 0)
        let wPlugin = max(6, rows.map { $0.plugin.count + $0.version.count + 1 }.max() ?? 0)
        func pad(_ s: String, _ n: Int) -> String { s + String(repeating: " ", count: max(0, n - s.count)) }
        let style = Console.outStyle
        out += style.bold(pad("KIND", wKind) + "  " + pad("NAME", wName) + "  " + pad("PLUGIN", wPlugin) + "  REGISTERED AT") + "\n"
        for r in rows {
            out += pad(r.kind, wKind) + "  " + style.type(pad(r.name, wName)) + "  " + pad(r.plugin + "@" + r.version, wPlugin) + "  " + style.dim(r.location) + "\n"
            // Indented detail lines, words separated by single spaces (the table's columns are
            // separated by two): the description, then each argument or meta field.
            if !r.description.isEmpty { out += "    " + single(r.description) + "\n" }
            for a in r.arguments {
                var line = "      " + a.name + ": " + a.type
                if a.required { line += ", required" }
                if let d = a.defaultValue { line += ", default " + e(d.serialized(pretty: false)) }
                if !a.description.isEmpty { line += " - " + a.description }
                out += style.dim(single(line)) + "\n"
            }
        }
        let loaded = plugins.filter(\.loaded)
        out += "\n\(loaded.count) plugin\(loaded.count == 1 ? "" : "s") loaded (\(loaded.map { e($0.name) }.joined(separator: ", "))), \(plugins.count - loaded.count) failed\n"
        return out
    }

    /// Runs of spaces in a detail line made single, past its indentation.
    func single(_ s: String) -> String {
        let indent = s.prefix { $0 == " " }
        var out = String(indent)
        var lastSpace = false
        for c in s.dropFirst(indent.count) {
            if c == " " && lastSpace { continue }
            lastSpace = c == " "
            out.append(c)
        }
        return out
    }

    var json: JSONValue {
        .object([
            "plugins": .array(plugins.map { p in
                .object(["name": .string(p.name), "version": .string(p.version), "file": .string(p.file), "loaded": .bool(p.loaded)])
            }),
            "registrations": .array(rows.map { r in
                .object(["kind": .string(r.kind), "name": .string(r.name), "plugin": .string(r.plugin), "version": .string(r.version), "location": .string(r.location), "description": .string(r.description),
                           "arguments": .array(r.arguments.map { a in
                               var o: OrderedDictionary<String, JSONValue> = ["name": .string(a.name), "type": .string(a.type), "required": .bool(a.required), "description": .string(a.description)]
                               if let d = a.defaultValue { o["default"] = d }
                               return .object(o)
                           })])
            }),
            "diagnostics": TreeOutput.diagnosticsJSON(diagnostics.sorted),
        ])
    }
}
