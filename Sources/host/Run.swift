import ArgumentParser
import Foundation
import LoomCore
import LoomPlugins
import OrderedCollections

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Resolve a screen for a user: print the tree they see and the navigation graph they can walk.",
        discussion: """
            SCREEN is a screen file (native, Matrioska or Spots JSON) or a screen id in the project's screens folder.
            Diagnostics go to stderr as path:line:column: error|warning: message. Exit status: 0 success, 1 errors in inputs.
            """)

    @Argument(help: "The screen file or screen id.")
    var screen: String

    @OptionGroup var user: UserOptions
    @OptionGroup var engine: EngineOptions

    @Option(name: .long, help: "Output format: text or json.")
    var format: OutputFormat = .text

    @Flag(name: .long, help: "Show every rule's value, its sub-rules (and those skipped by short-circuit), and hidden components with why.")
    var explain = false

    @Flag(name: .customLong("no-graph"), help: "Do not explore the navigation graph.")
    var noGraph = false

    func run() throws {
        let ws = try engine.workspace(anchor: SafeFile.exists(screen) ? screen : nil)
        var diagnostics = ws.loadDiagnostics
        let file = try orExit(ws.locateScreen(screen), diagnostics)
        let profile = try orExit(user.profile(in: ws), diagnostics)
        let (parsed, screenDiagnostics, check) = ws.screen(file: file)
        diagnostics.append(contentsOf: screenDiagnostics)
        guard let parsed, let check else {
            Console.report(diagnostics)
            throw ExitCode(1)
        }
        let resolution = ws.resolve(parsed, check: check, user: profile, explain: explain)
        diagnostics.append(contentsOf: resolution.diagnostics)
        var graph: NavigationOutput?
        if !noGraph {
            graph = ws.navigationGraph(from: parsed, user: profile)
            if let g = graph { diagnostics.append(contentsOf: g.diagnostics) }
        }
        switch format {
        case .text:
            var out = TreeOutput.text(resolution, style: Console.outStyle, explain: explain)
            if let g = graph {
                out += "\n" + g.text
                if !out.hasSuffix("\n") { out += "\n" }
            }
            Console.out(out)
        case .json:
            var o: OrderedDictionary<String, JSONValue> = [:]
            o["screen"] = .string(resolution.screen)
            o["user"] = .object(["name": profile.name.map { .string($0) } ?? .null, "attributes": .object(profile.attributes)])
            o["tree"] = resolution.tree.map { TreeOutput.json($0, explain: explain) } ?? .null
            o["graph"] = graph?.json ?? .null
            o["diagnostics"] = TreeOutput.diagnosticsJSON(diagnostics.sorted)
            Console.out(JSONValue.object(o).serialized(pretty: true) + "\n")
        }
        if Console.report(diagnostics) { throw ExitCode(1) }
    }
}

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Load plugins, screens and flows without a user and report every static problem at once.",
        discussion: "With no SCREEN, checks every screen in the project's screens folder. Exit status 1 on any error.")

    @Argument(help: "Screen files or ids (default: every screen of the project).")
    var screens: [String] = []

    @OptionGroup var engine: EngineOptions

    @Option(name: .long, help: "Output format: text or json.")
    var format: OutputFormat = .text

    func run() throws {
        let anchor = screens.first.flatMap { SafeFile.exists($0) ? $0 : nil }
        let ws = try engine.workspace(anchor: anchor)
        var diagnostics = ws.loadDiagnostics
        var files: [String] = []
        if screens.isEmpty {
            files = ws.project.screenFiles()
        } else {
            for s in screens {
                switch ws.locateScreen(s) {
                case .success(let f): files.append(f)
                case .failure(let e): diagnostics.append(e)
                }
            }
        }
        for f in files {
            let (_, d, _) = ws.screen(file: f)
            diagnostics.append(contentsOf: d)
        }
        diagnostics.append(contentsOf: ws.checkNavigation())
        let errors = diagnostics.errors.count, warnings = diagnostics.warnings.count
        switch format {
        case .text:
            Console.report(diagnostics)
            let summary = "checked \(files.count) screen\(files.count == 1 ? "" : "s") and \(ws.engine.plugins.count) plugin\(ws.engine.plugins.count == 1 ? "" : "s"): \(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")\n"
            Console.out(summary)
        case .json:
            let o: JSONValue = .object([
                "screens": .array(files.map { .string($0) }),
                "errors": .int(errors), "warnings": .int(warnings),
                "diagnostics": TreeOutput.diagnosticsJSON(diagnostics.sorted),
            ])
            Console.out(o.serialized(pretty: true) + "\n")
            Console.report(diagnostics)
        }
        if diagnostics.hasErrors { throw ExitCode(1) }
    }
}

struct Plugins: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List every registered component type, item view, rule and flow with its plugin and where it was registered.",
        discussion: "Load errors are printed as path:line: error: message; exit status 1 when any plugin failed to load.")

    @OptionGroup var engine: EngineOptions

    @Option(name: .long, help: "Output format: text or json.")
    var format: OutputFormat = .text

    func run() throws {
        let ws = try engine.workspace(anchor: nil)
        let f = ws.factory
        struct Row {
            var kind, name, plugin, version, location, description: String
        }
        var rows: [Row] = []
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
        for fl in ws.engine.luaFlows {
            rows.append(Row(kind: "flow", name: fl.name, plugin: fl.plugin.name, version: fl.plugin.version, location: fl.location.description, description: ""))
        }
        // Names and versions come from plugins: escaped in text (JSON escapes by itself).
        let e = TextEscape.escaped
        let textRows = rows.map { Row(kind: e($0.kind), name: e($0.name), plugin: e($0.plugin), version: e($0.version), location: e($0.location), description: e($0.description)) }
        let diagnostics = ws.loadDiagnostics
        switch format {
        case .text:
            var out = ""
            let rows = textRows
            let wKind = max(4, rows.map(\.kind.count).max() ?? 0)
            let wName = max(4, rows.map(\.name.count).max() ?? 0)
            let wPlugin = max(6, rows.map { $0.plugin.count + $0.version.count + 1 }.max() ?? 0)
            func pad(_ s: String, _ n: Int) -> String { s + String(repeating: " ", count: max(0, n - s.count)) }
            let style = Console.outStyle
            out += style.bold(pad("KIND", wKind) + "  " + pad("NAME", wName) + "  " + pad("PLUGIN", wPlugin) + "  REGISTERED AT") + "\n"
            for r in rows {
                out += pad(r.kind, wKind) + "  " + style.type(pad(r.name, wName)) + "  " + pad(r.plugin + "@" + r.version, wPlugin) + "  " + style.dim(r.location) + "\n"
            }
            let loaded = ws.engine.plugins.filter(\.loaded).count
            out += "\n\(loaded) plugin\(loaded == 1 ? "" : "s") loaded (\(ws.engine.plugins.filter(\.loaded).map { e($0.info.name) }.joined(separator: ", "))), \(ws.engine.plugins.count - loaded) failed\n"
            Console.out(out)
        case .json:
            let o: JSONValue = .object([
                "plugins": .array(ws.engine.plugins.map { p in
                    .object(["name": .string(p.info.name), "version": .string(p.info.version), "file": .string(p.file), "loaded": .bool(p.loaded)])
                }),
                "registrations": .array(rows.map { r in
                    .object(["kind": .string(r.kind), "name": .string(r.name), "plugin": .string(r.plugin), "version": .string(r.version), "location": .string(r.location), "description": .string(r.description)])
                }),
                "diagnostics": TreeOutput.diagnosticsJSON(diagnostics.sorted),
            ])
            Console.out(o.serialized(pretty: true) + "\n")
        }
        // path:line: error: message
        if Console.report(diagnostics) { throw ExitCode(1) }
    }
}
