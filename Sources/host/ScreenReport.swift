import ArgumentParser
import Foundation
import LoomCore
import LoomDiff
import LoomLayout
import LoomPlugins
import LoomStyles
import LoomText
import OrderedCollections

/// What `host run` prints: a screen resolved for a user, with the graph they can walk.
struct ScreenReport {
    var resolution: Resolution
    var profile: UserProfile
    var graph: NavigationOutput?
    var explain: Bool
    var diagnostics: Diagnostics
    /// A native screen's `title` and `description`, shown as written.
    var screenInfo: [(key: String, value: JSONValue)] = []
    /// With `--patch`: what the patches changed for this user (Spots' classes).
    var changes: [TreeChange]?
    /// With `--layout`: the screen laid out for the device.
    var layout: LayoutResult?

    /// Loads, checks and resolves `screen` (a file or an id); reports and exits 1 when the
    /// screen, the user or the project cannot be used.
    static func resolve(_ screen: String, in ws: Workspace, user: UserOptions, explain: Bool, graph withGraph: Bool,
                        patches: [String] = [], params: [String: String] = [:]) throws -> ScreenReport {
        var diagnostics = ws.loadDiagnostics
        diagnostics.append(contentsOf: ws.styleLoadDiagnostics)
        let file = try orExit(ws.locateScreen(screen), diagnostics)
        let profile = try orExit(user.profile(in: ws), diagnostics)
        let loaded = ws.screen(file: file)
        diagnostics.append(contentsOf: loaded.diagnostics)
        guard var parsed = loaded.screen, var check = loaded.check else {
            Console.report(diagnostics)
            throw ExitCode(1)
        }
        // Patches apply in order, each all or nothing; any error stops before resolving.
        var before: JSONValue?
        if !patches.isEmpty {
            before = ws.resolve(parsed, check: check, user: profile).tree.map { TreeOutput.json($0, explain: false) }
            for path in patches {
                let (patch, pd) = ScreenPatch.load(path, limits: ws.project.fileLimits)
                diagnostics.append(contentsOf: pd)
                guard let patch else { Console.report(diagnostics); throw ExitCode(1) }
                let (patched, ad) = patch.apply(to: parsed, check: check, factory: ws.factory)
                diagnostics.append(contentsOf: ad)
                guard let patched else { Console.report(diagnostics); throw ExitCode(1) }
                parsed = patched.screen
                check = patched.check
            }
        }
        // A patched screen has the file's name but other nodes: it must not share the file's cache.
        let resolution = patches.isEmpty ? ws.resolve(parsed, check: check, user: profile, explain: explain, params: params)
            : ws.resolveUncached(parsed, check: check, user: profile, explain: explain, params: params)
        diagnostics.append(contentsOf: resolution.diagnostics)
        var graph: NavigationOutput?
        if withGraph {
            graph = ws.navigationGraph(from: parsed, user: profile)
            if let g = graph { diagnostics.append(contentsOf: g.diagnostics) }
        }
        var report = ScreenReport(parsed, resolution: resolution, profile: profile, graph: graph, explain: explain, diagnostics: diagnostics)
        if !patches.isEmpty {
            // Compared without --explain's hidden nodes: what the user saw, then sees.
            let after = explain ? ws.resolveUncached(parsed, check: check, user: profile).tree.map { TreeOutput.json($0, explain: false) }
                                : resolution.tree.map { TreeOutput.json($0, explain: false) }
            report.changes = TreeDiffer(old: before, new: after).changes
        }
        return report
    }

    func rendered(_ format: OutputFormat, style: Style = Console.outStyle) -> String {
        switch format {
        case .text:
            var out = TreeOutput.text(resolution, style: style, explain: explain, frames: layout?.treeFrames)
            var header = screenInfo.map { "\($0.key): " + TreeOutput.compact($0.value) + "\n" }
            if let layout { header.append(style.dim(layout.headerLine) + "\n") }
            if !header.isEmpty, let firstLine = out.firstIndex(of: "\n") {
                out.insert(contentsOf: header.joined(), at: out.index(after: firstLine))
            }
            if let layout {
                out += "\nfindings: " + (layout.findings.isEmpty ? "none" : "\(layout.findings.count)") + "\n"
                for f in layout.findingLines { out += "  " + TextEscape.escaped(f) + "\n" }
            }
            if let changes {
                out += "\nchanges: " + (changes.isEmpty ? "none" : "\(changes.count)") + "\n"
                for c in changes { out += "  " + c.line + "\n" }
            }
            if let g = graph {
                out += "\n" + g.text
                if !out.hasSuffix("\n") { out += "\n" }
            }
            return out
        case .json:
            var o: OrderedDictionary<String, JSONValue> = [:]
            o["screen"] = .string(resolution.screen)
            for (k, v) in screenInfo { o[k] = v }
            o["user"] = .object(["name": profile.name.map { .string($0) } ?? .null, "attributes": .object(profile.attributes)])
            o["tree"] = resolution.tree.map { TreeOutput.json($0, explain: explain, frames: layout?.treeFrames) } ?? .null
            if let layout { o["layout"] = layout.json }
            if let changes { o["changes"] = .array(changes.map(\.json)) }
            o["graph"] = graph?.json ?? .null
            o["diagnostics"] = TreeOutput.diagnosticsJSON(diagnostics.sorted)
            return JSONValue.object(o).serialized(pretty: true) + "\n"
        }
    }
}

extension ScreenReport {
    /// Lays the resolved tree out for a device (`--layout`): frames, findings, and the layout's
    /// diagnostics (constraint errors, broken and ambiguous constraints). Exits 1 when no font
    /// can be loaded.
    mutating func layOut(in ws: Workspace, for context: DeviceContext) throws {
        let fonts: FontLibrary
        switch FontLibrary.shared {
        case .success(let f): fonts = f
        case .failure(let e):
            diagnostics.error("cannot lay out: \(e.message)")
            Console.report(diagnostics)
            throw ExitCode(1)
        }
        let out = LayoutEngine(factory: ws.factory, measurer: fonts).layout(resolved: resolution.tree, on: context)
        diagnostics.append(contentsOf: out.diagnostics)
        layout = out.result
    }

    /// A report of `screen` resolved: its `title` and `description` shown as written.
    init(_ screen: Screen, resolution: Resolution, profile: UserProfile, graph: NavigationOutput?, explain: Bool,
         diagnostics: Diagnostics) {
        self.init(resolution: resolution, profile: profile, graph: graph, explain: explain, diagnostics: diagnostics)
        if let t = screen.title { screenInfo.append(("title", t)) }
        if let d = screen.description { screenInfo.append(("description", d)) }
    }
}
