import LoomCore
import LoomWorkspace

/// What `host plugins` prints: every registration with its plugin, and the load errors.
struct PluginListing {
    struct Row {
        var kind, name, plugin, version, location, description: String
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
                rows.append(Row(kind: r.kind.rawValue, name: n, plugin: r.plugin.name, version: r.plugin.version, location: r.location.description, description: r.description ?? ""))
            case "item":
                let r = f.items[name]!
                rows.append(Row(kind: "item", name: name, plugin: r.plugin.name, version: r.plugin.version, location: r.location.description, description: ""))
            default:
                let r = f.rules[name]!
                rows.append(Row(kind: "rule", name: name, plugin: r.plugin.name, version: r.plugin.version, location: r.location.description, description: r.description ?? ""))
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
        let rows = self.rows.map { Row(kind: e($0.kind), name: e($0.name), plugin: e($0.plugin), version: e($0.version), location: e($0.location), description: e($0.description)) }
        var out = ""
        let wKind = max(4, rows.map(\.kind.count).max() ?? 0)
        let wName = max(4, rows.map(\.name.count).max() ?? 0)
        let wPlugin = max(6, rows.map { $0.plugin.count + $0.version.count + 1 }.max() ?? 0)
        func pad(_ s: String, _ n: Int) -> String { s + String(repeating: " ", count: max(0, n - s.count)) }
        let style = Console.outStyle
        out += style.bold(pad("KIND", wKind) + "  " + pad("NAME", wName) + "  " + pad("PLUGIN", wPlugin) + "  REGISTERED AT") + "\n"
        for r in rows {
            out += pad(r.kind, wKind) + "  " + style.type(pad(r.name, wName)) + "  " + pad(r.plugin + "@" + r.version, wPlugin) + "  " + style.dim(r.location) + "\n"
        }
        let loaded = plugins.filter(\.loaded)
        out += "\n\(loaded.count) plugin\(loaded.count == 1 ? "" : "s") loaded (\(loaded.map { e($0.name) }.joined(separator: ", "))), \(plugins.count - loaded.count) failed\n"
        return out
    }

    var json: JSONValue {
        .object([
            "plugins": .array(plugins.map { p in
                .object(["name": .string(p.name), "version": .string(p.version), "file": .string(p.file), "loaded": .bool(p.loaded)])
            }),
            "registrations": .array(rows.map { r in
                .object(["kind": .string(r.kind), "name": .string(r.name), "plugin": .string(r.plugin), "version": .string(r.version), "location": .string(r.location), "description": .string(r.description)])
            }),
            "diagnostics": TreeOutput.diagnosticsJSON(diagnostics.sorted),
        ])
    }
}
