import Foundation
import LoomCore
import LoomDiff
import LoomStyles
import LoomWorkspace
import OrderedCollections

/// One side of `host diff`: a workspace and the screen file in it.
public struct DiffSide {
    public let label: String
    public let ws: Workspace
    public let file: String

    public init(label: String, options: Workspace.Options, screen: String) throws {
        self.label = label
        var o = options
        if o.project == nil { o.project = Workspace.projectRoot(explicit: nil, screen: screen) }
        ws = try Workspace.open(options: o, anchor: screen)
        switch ws.locateScreen(screen) {
        case .success(let f): file = f
        case .failure(let d): throw DiffInputError(diagnostics: Diagnostics([d]))
        }
    }
}

/// Inputs `host diff` cannot compare (exit 2).
public struct DiffInputError: Error {
    public var diagnostics: Diagnostics
    public init(diagnostics: Diagnostics) { self.diagnostics = diagnostics }
}

/// What `host diff` prints: per profile, the changes and the graph edges gained and lost.
public struct DiffReport {
    public struct ProfileResult {
        public var name: String
        public var changes: [TreeChange]
        public var unchanged: Int
        public var graph: GraphDiff
        public var counts: ChangeCounts { ChangeCounts(changes, unchanged: unchanged) }
        public var changed: Bool { !changes.isEmpty || graph.changed }
    }

    public var screen: String
    public var oldLabel: String
    public var newLabel: String
    public var impactTable: Bool
    public var results: [ProfileResult] = []
    public var diagnostics = Diagnostics()

    public var changed: Bool { results.contains { $0.changed } }

    /// Resolves both sides for each selected profile (`users`: "all", a comma-separated list,
    /// or nil for `user`'s one profile; `user`'s attributes and time apply to every profile) on
    /// `device` (nil: the default, not chosen), each side through the pipeline, explained (so
    /// hidden nodes say why), with its graph, and compares them.
    public static func compare(old: DiffSide, new: DiffSide, users: String?, user: UserSelection,
                               device: DeviceContext?) throws(DiffInputError) -> DiffReport {
        var load = old.ws.loadDiagnostics
        load.append(contentsOf: new.ws.loadDiagnostics)
        let oldScreen = old.ws.screen(file: old.file), newScreen = new.ws.screen(file: new.file)
        load.append(contentsOf: oldScreen.diagnostics)
        load.append(contentsOf: newScreen.diagnostics)
        guard !load.hasErrors, oldScreen.screen != nil, oldScreen.check != nil, let ns = newScreen.screen, newScreen.check != nil else {
            throw DiffInputError(diagnostics: load)
        }
        var names: [String?]
        switch users {
        case "all"?:
            names = new.ws.users.profiles.keys.map { Optional($0) }
            if names.isEmpty {
                throw DiffInputError(diagnostics: Diagnostics([.error("--users all: \(new.ws.project.usersFile) defines no profiles")]))
            }
        case let list?:
            names = list.split(separator: ",").map { Optional($0.trimmingCharacters(in: .whitespaces)) }
        case nil:
            names = [user.profile]
        }
        var report = DiffReport(screen: ns.id, oldLabel: old.label, newLabel: new.label, impactTable: users != nil)
        report.diagnostics = load
        var errors = Diagnostics()
        for name in names {
            var selection = user
            selection.profile = name
            func request(_ side: DiffSide) -> ScreenRequest {
                ScreenRequest(screen: side.file, user: selection, device: device, compute: [.tree, .explain, .graph])
            }
            let ra = ScreenPipeline.resolve(request(old), in: old.ws), rb = ScreenPipeline.resolve(request(new), in: new.ws)
            // A profile one side does not know (the new side's complaint first): reported for all
            // profiles at once. Both screens parsed above, so only the user can stop a side here.
            if let f = rb.failure ?? ra.failure {
                errors.append(contentsOf: f)
                continue
            }
            guard let a = ra.resolution, let b = rb.resolution, let ga = ra.graph, let gb = rb.graph else { continue }
            // The resolutions' own diagnostics: the projects' were checked above, and the graphs'
            // belong to `host graph`.
            report.diagnostics.append(contentsOf: a.diagnostics)
            report.diagnostics.append(contentsOf: b.diagnostics)
            let (oldTree, oldHidden) = VisibleTree.split(a.tree.map { TreeOutput.json($0, explain: true) })
            let (newTree, newHidden) = VisibleTree.split(b.tree.map { TreeOutput.json($0, explain: true) })
            let differ = TreeDiffer(old: oldTree, new: newTree)
            var d = differ.changes
            for i in d.indices {
                guard let id = d[i].id else { continue }
                if d[i].change == .deleted, let why = newHidden[id] { d[i].reason = "now hidden: \(why)" }
                if d[i].change == .inserted, let why = oldHidden[id] { d[i].reason = "was hidden: \(why)" }
            }
            report.results.append(ProfileResult(name: name ?? "(anonymous)", changes: d,
                                                unchanged: differ.unchanged,
                                                graph: GraphDiff(old: ga.json, new: gb.json)))
        }
        if errors.hasErrors { throw DiffInputError(diagnostics: errors) }
        return report
    }

    public func rendered(_ format: OutputFormat) -> String {
        switch format {
        case .json: return json.serialized(pretty: true) + "\n"
        case .text: return text
        }
    }

    public var json: JSONValue {
        var us: OrderedDictionary<String, JSONValue> = [:]
        for r in results {
            let c = r.counts
            us[r.name] = .object([
                "changes": .array(r.changes.map(\.json)),
                "graph": r.graph.json,
                "counts": .object(["inserted": .int(c.inserted), "deleted": .int(c.deleted), "moved": .int(c.moved),
                                   "hard": .int(c.hard), "soft": .int(c.soft), "unchanged": .int(c.unchanged)]),
            ])
        }
        return .object(["screen": .string(screen), "old": .string(oldLabel), "new": .string(newLabel), "users": .object(us)])
    }

    /// The screen id, the labels (file names, a revision) and profile names come from the
    /// project or the command line: each through `TextEscape`, as the change lines are.
    public var text: String {
        let e = TextEscape.escaped
        var out = "\(e(screen)): \(e(oldLabel)) → \(e(newLabel))\n"
        for r in results {
            let c = r.counts
            if !r.changed {
                out += "\(e(r.name)): no changes\n"
                continue
            }
            out += "\(e(r.name)): \(c.total) change\(c.total == 1 ? "" : "s") (\(c.hard) hard, \(c.soft) soft, \(c.inserted) inserted, \(c.deleted) deleted, \(c.moved) moved), \(c.unchanged) unchanged\n"
            for ch in r.changes { out += "  " + ch.line + "\n" }
            for l in r.graph.lines { out += "  " + l + "\n" }
        }
        if impactTable { out += "\n" + impact }
        return out
    }

    /// Per profile: hard and soft counts and whether the graph changed.
    public var impact: String {
        let header = ["profile", "hard", "soft", "inserted", "deleted", "moved", "graph"]
        var rows = [header]
        for r in results {
            let c = r.counts
            rows.append([TextEscape.escaped(r.name), "\(c.hard)", "\(c.soft)", "\(c.inserted)", "\(c.deleted)", "\(c.moved)",
                         r.graph.changed ? "+\(r.graph.gained.count) -\(r.graph.lost.count)" : "same"])
        }
        var widths = [Int](repeating: 0, count: header.count)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        return rows.map { row in
            row.enumerated().map { i, cell in
                i == 0 ? cell.padding(toLength: widths[i], withPad: " ", startingAt: 0)
                       : String(repeating: " ", count: widths[i] - cell.count) + cell
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }
}

/// An `--explain` tree split into what the user sees and why each hidden node (by id) is hidden.
public enum VisibleTree {
    public static func split(_ tree: JSONValue?) -> (JSONValue?, [String: String]) {
        var hidden: [String: String] = [:]
        func visit(_ v: JSONValue) -> JSONValue? {
            guard var o = v.object else { return v }
            if o["hidden"]?.bool == true {
                if let id = o["id"]?.string { hidden[id] = o["reason"]?.string ?? "hidden by a rule" }
                return nil
            }
            o.removeValue(forKey: "rule")
            o.removeValue(forKey: "reason")
            o.removeValue(forKey: "style_provenance")  // where style values came from: --explain's, not the tree's
            for k in ["children", "items"] {
                if let a = o[k]?.array { o[k] = .array(a.compactMap(visit)) }
            }
            for k in ["header", "footer"] {
                if let h = o[k], !h.isNull { o[k] = visit(h) ?? .null }
            }
            return .object(o)
        }
        return (tree.flatMap(visit), hidden)
    }
}
