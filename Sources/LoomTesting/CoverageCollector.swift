import Foundation
import LoomCore
import LoomWorkspace
import LoomNavigation
import LoomPlugins
import LuaRuntime

/// Gathers the coverage of one scenario file (on its worker thread): enumerates its project's
/// screens and profiles (zero counts), then counts what the sessions resolve and take.
final class CoverageCollector {
    private(set) var data = ScenarioCoverage()
    private var enumerated = Set<String>()

    init(ws: Workspace) {
        usersFile = ws.project.usersFile
        for (_, file) in ws.screenFiles().sorted(by: { $0.value < $1.value }) {
            if let screen = ws.screen(file: file).screen { enumerate(screen) }
        }
        for name in ws.users.profiles.keys {
            data.profiles[ScenarioCoverage.profileKey(usersFile, name)] = .init(name: name, file: usersFile)
        }
        // Named rules (loom.json / rules.json): their expressions, evaluated where screens use them.
        for named in ws.project.namedRules {
            if let e = named.expression { rules(e, screen: "named:" + named.name) }
        }
    }

    private let usersFile: String

    /// Every rule expression, component, item and navigation action of a screen, at zero.
    func enumerate(_ screen: Screen) {
        guard enumerated.insert(screen.file).inserted else { return }
        if data.screens[screen.file] == nil {
            data.screens[screen.file] = .init(id: screen.id, file: screen.file)
        }
        func rules(_ r: RuleExpression?) {
            if let r { self.rules(r, screen: screen.id) }
        }
        func action(_ a: String?) {
            guard let a, let step = Step(action: a) else { return }
            let key = ScenarioCoverage.edgeKey(screen.file, step.description)
            data.edges[key, default: .init(screen: screen.id, file: screen.file, step: step.description)].declared = true
        }
        screen.root.walk { c in
            rules(c.rule)
            node(screen, path: c.path, isItem: false, type: c.type, id: c.id, title: nil, location: c.location)
            action(c.action)
            for i in c.items {
                rules(i.rule)
                node(screen, path: i.path, isItem: true, type: i.kind ?? "item", id: i.id, title: i.title, location: i.location)
                action(i.action)
            }
        }
    }

    /// An expression and every expression in it, at zero.
    private func rules(_ r: RuleExpression, screen: String) {
        site(r, screen: screen)
        switch r {
        case .rule: break
        case .and(let list, _), .or(let list, _): for x in list { rules(x, screen: screen) }
        case .not(let x, _): rules(x, screen: screen)
        }
    }

    private func site(_ r: RuleExpression, screen: String) {
        let key = r.location.description
        guard data.rules[key] == nil else { return }
        let name: String
        switch r {
        case .rule(let n, _, _): name = n
        case .and: name = "AND"
        case .or: name = "OR"
        case .not: name = "NOT"
        }
        data.rules[key] = .init(location: r.location, screen: screen, text: r.text, name: name)
    }

    @discardableResult
    private func node(_ screen: Screen, path: String, isItem: Bool, type: String, id: String?, title: String?, location: SourceLocation) -> String {
        let key = ScenarioCoverage.nodeKey(screen.file, path)
        if data.nodes[key] == nil {
            data.nodes[key] = .init(screen: screen.id, file: screen.file, path: path, isItem: isItem, type: type, id: id, title: title, location: location)
        }
        return key
    }

    // MARK: Counting

    /// A session was opened for `user`.
    func opened(user: UserProfile) {
        guard let name = user.name else {
            data.anonymousSessions += 1
            return
        }
        let key = ScenarioCoverage.profileKey(usersFile, name)
        data.profiles[key, default: .init(name: name, file: usersFile)].sessions += 1
    }

    /// A session resolved `screen`; `explained` is the same resolution with hidden parts and
    /// every rule's trace (`explain: true`).
    func resolved(_ screen: Screen, explained r: Resolution) {
        enumerate(screen)
        data.screens[screen.file, default: .init(id: screen.id, file: screen.file)].opened += 1
        var offered = Set<String>()
        for a in r.actions {
            if let step = Step(action: a.action) { offered.insert(step.description) }
        }
        for step in offered {
            data.edges[ScenarioCoverage.edgeKey(screen.file, step), default: .init(screen: screen.id, file: screen.file, step: step)].offered += 1
        }
        guard let tree = r.tree else { return }
        visit(tree, screen)
    }

    private func visit(_ n: ResolvedNode, _ screen: Screen) {
        count(n.path, isItem: false, type: n.type, id: n.id, title: nil, location: n.location, hidden: n.hidden, rule: n.rule, screen)
        if let h = n.header { visit(h, screen) }
        for c in n.children { visit(c, screen) }
        for i in n.items ?? [] {
            count(i.path, isItem: true, type: i.kind ?? "item", id: i.id, title: i.title, location: i.location, hidden: i.hidden, rule: i.rule, screen)
            for c in i.children { visit(c, screen) }
        }
        if let f = n.footer { visit(f, screen) }
    }

    private func count(_ path: String, isItem: Bool, type: String, id: String?, title: String?, location: SourceLocation, hidden: Bool,
                       rule: RuleTrace?, _ screen: Screen) {
        let key = node(screen, path: path, isItem: isItem, type: type, id: id, title: title, location: location)
        if hidden { data.nodes[key]!.hidden += 1 } else { data.nodes[key]!.shown += 1 }
        if let rule { trace(rule, screen) }
    }

    private func trace(_ t: RuleTrace, _ screen: Screen) {
        let key = t.location.description
        if data.rules[key] == nil {
            // A rule the screen does not spell out (a named rule's expansion): as traced.
            let name = t.expression.prefix { $0 != "(" && $0 != "{" }
            data.rules[key] = .init(location: t.location, screen: screen.id, text: t.expression, name: String(name))
        }
        if t.skipped {
            data.rules[key]!.skipped += 1
        } else if let v = t.value {
            if v { data.rules[key]!.trueCount += 1 } else { data.rules[key]!.falseCount += 1 }
        } else {
            data.rules[key]!.errored += 1
        }
        // A skipped operand's own operands were not reached at all.
        if t.skipped { return }
        for c in t.children { trace(c, screen) }
    }

    /// A scenario took `step` from `screen` (id, file) and arrived at `target`.
    func took(_ step: String, from screen: String, file: String, to target: String) {
        var e = data.edges[ScenarioCoverage.edgeKey(file, step)] ?? .init(screen: screen, file: file, step: step)
        e.taken += 1
        e.targets[target, default: 0] += 1
        data.edges[ScenarioCoverage.edgeKey(file, step)] = e
    }
}

extension CoverageCollector {
    /// Makes a scenario file's workspace; with line coverage its Lua state records lines from
    /// the start (plugins' top-level code included).
    static func workspace(_ options: ScenarioOptions, _ make: () throws(LuaError) -> Workspace) throws(LuaError) -> Workspace {
        guard options.lineCoverage else { return try make() }
        return try LuaState.recordingLineCoverage(make)
    }

    /// The file's coverage: what its sessions counted, and with line coverage the lines of the
    /// plugin files its workspace loaded (files of the standard plugins excepted, unless they
    /// are the plugin whose own scenarios these are).
    static func finish(_ collector: CoverageCollector?, file: ScenarioFile, options: ScenarioOptions, ws: Workspace) -> ScenarioCoverage? {
        guard options.coverage || options.lineCoverage else { return nil }
        var out = collector?.data ?? ScenarioCoverage()
        if options.lineCoverage, let lines = ws.engine.state.lineCoverage {
            let known = ws.engine.sandbox.knownFiles
            let std = ScenarioDiscovery.standardized(options.standardPlugins ?? PluginDiscovery.standardPluginsDirectory())
            let own = file.plugin.map(ScenarioDiscovery.standardized)
            out.lines.merge(lines.filter { path in
                guard known.contains(path), !StandardPlugins.isVirtual(path), SafeFile.exists(path) else { return false }
                let full = ScenarioDiscovery.standardized(path)
                if let own, full.hasPrefix(own + "/") { return true }
                return !full.hasPrefix(std + "/")
            })
        }
        return out
    }
}

extension ScenarioCoverage {
    /// The coverage of a run: the files' coverages added up.
    static func merged(_ outcomes: [ScenarioFileOutcome]) -> ScenarioCoverage {
        var c = ScenarioCoverage()
        for o in outcomes { if let oc = o.coverage { c.merge(oc) } }
        return c
    }
}

extension ScenarioSession {
    /// The current screen (id, file) before a step, for the edge the step takes.
    var coverageOrigin: (screen: String, file: String)? {
        guard coverage != nil, let top = simulator.current else { return nil }
        let file = top.screen == opened.id ? opened.file : (ws.screenFiles()[top.screen] ?? top.screen)
        return (top.screen, file)
    }

    /// Counts a step taken from `from` to the screen now current.
    func took(_ step: String, from: (screen: String, file: String)?) {
        guard let coverage, let from else { return }
        coverage.took(step, from: from.screen, file: from.file, to: simulator.current?.screen ?? "(navigation ended)")
    }
}
