import Foundation
import LoomCommands
import LoomCore
import LoomWorkspace
import LoomDiff
import LoomLayout
import LoomPlugins
import LoomStyles
import LoomNavigation
import OrderedCollections

/// A failed expectation or operation: its message becomes a Lua error at the scenario's line.
struct ScenarioFailure: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

/// One `t:open(screen, {user = …})`: a user walking the app from a screen, with the navigation
/// simulator keeping the stack.
final class ScenarioSession {
    /// The workspace, the user and device, what `t:open` opened, and the opened screen's
    /// resolution handed to the navigation simulator: shared with the simulator's closures.
    let link: SessionLink
    var ws: Workspace { link.ws }
    var user: UserProfile { link.user }
    /// The device, orientation and size classes the session's screens resolve for (`t:open`
    /// options `device`, `orientation`, `traits`).
    var device: DeviceContext? { link.device }
    /// The screen `t:open` named (also when it lies outside the project's screens folder).
    var opened: Screen { link.target.screen }
    let simulator: NavigationSimulator
    /// Resolutions by stack entry (`cacheKey`): the first one kept without a dictionary (most
    /// sessions show one screen), the others in `cache`.
    private var firstCached: (key: String, entry: ResolvedScreen)?
    private var cache: [String: ResolvedScreen] = [:]
    /// Error diagnostics of the resolutions so far (screen id, diagnostic), each once: a
    /// scenario fails on any that no `s:expect_diagnostic` declared.
    private(set) var resolutionErrors: [(screen: String, diagnostic: Diagnostic)] = []
    /// `s:expect_diagnostic(text)` calls: the text and the scenario file's line.
    var expectedDiagnostics: [(text: String, line: Int)] = []
    /// Whether the strictness check has run (at the end of its scenario or `t:each_user` run).
    var strictnessChecked = false
    /// Counts what this session resolves and takes (`host test --coverage`).
    var coverage: CoverageCollector?
    /// What the last `s:mutate` changed (nil before the first).
    var lastChanges: [TreeChange]?
    /// The screens laid out for the session's device, by navigation entry (ScenarioSession+Layout).
    var layouts: [String: LayoutOutcome] = [:]
    /// Each screen's state (docs/data.md, "State") by navigation entry, once read or tapped.
    var states: [String: ScreenState] = [:]

    init(link: SessionLink, simulator: NavigationSimulator) {
        self.link = link
        self.simulator = simulator
    }

    var userLabel: String { user.name.map { "user \($0)" } ?? "an anonymous user" }
    var screenID: String { simulator.current?.screen ?? opened.id }

    /// The current screen, parsed, checked and resolved for the user.
    func current() throws(ScenarioFailure) -> (Screen, ScreenCheck, Resolution) {
        let c = try currentEntry()
        return (c.prepared.screen, c.prepared.check, c.resolution)
    }

    /// What a session asks the pipeline for a screen opened with `params`: its user (made once,
    /// at `t:open`) and device; `explain` for the expectations that say why.
    func request(_ prepared: PreparedScreen, params: [String: String], explain: Bool = false) -> ScreenRequest {
        ScreenRequest(screen: prepared.file, profile: user, params: params, device: device, compute: explain ? [.tree, .explain] : [.tree])
    }

    /// `prepared` resolved through the pipeline for the session's user and device.
    func resolve(_ prepared: PreparedScreen, params: [String: String], explain: Bool = false) -> Resolution {
        ScreenPipeline.resolution(of: prepared, request: request(prepared, params: params, explain: explain), user: user, in: ws)
    }

    /// The current screen's resolution, made the first time the screen is current.
    private func currentEntry() throws(ScenarioFailure) -> ResolvedScreen {
        guard let top = simulator.current else {
            throw ScenarioFailure("there is no current screen: the navigation has ended (the entry flow finished)")
        }
        let key = ScenarioSession.cacheKey(top)
        if let c = cached(key) { return c }
        let prepared = try stackScreen(top)
        let r = resolve(prepared, params: top.params)
        // The opened screen's resolution is the one its navigation simulator reads actions from.
        if top.screen == opened.id, link.slot == nil { link.slot = (key, r) }
        let entry = ResolvedScreen(prepared: prepared, resolution: r)
        store(key, entry)
        if let coverage { coverage.resolved(prepared.screen, explained: resolve(prepared, params: top.params, explain: true)) }
        for d in r.diagnostics.errors where !resolutionErrors.contains(where: { $0.diagnostic == d }) {
            resolutionErrors.append((top.screen, d))
        }
        return entry
    }

    private func cached(_ key: String) -> ResolvedScreen? {
        if let f = firstCached, f.key == key { return f.entry }
        return cache.isEmpty ? nil : cache[key]
    }

    private func store(_ key: String, _ entry: ResolvedScreen) {
        if firstCached == nil || firstCached!.key == key { firstCached = (key, entry) } else { cache[key] = entry }
    }

    /// The prepared screen of a stack entry: the opened one, or the project's by id
    /// (`ScreenPipeline.prepare`: the workspace parses each file once).
    private func stackScreen(_ top: NavigationEntry) throws(ScenarioFailure) -> PreparedScreen {
        if top.screen == link.target.screen.id { return link.target.prepared }
        guard let file = ws.screenFiles()[top.screen] else {
            throw ScenarioFailure("screen '\(top.screen)' is on the stack, but no screen file has that id in \(ws.project.screensDir)")
        }
        // A screen fed by data is rebuilt as a request for it is: with its declared data, this
        // user's providers and the parameters of the step that opened it.
        let loaded = ScreenPipeline.expandsForRequest(file, data: [:], state: [:], params: top.params, in: ws)
            ? ScreenPipeline.prepare(file: file, data: DataRequest(params: top.params, user: user), in: ws)
            : ScreenPipeline.prepare(file: file, in: ws)
        let d = loaded.diagnostics
        guard let prepared = loaded.prepared, !d.hasErrors else {
            throw ScenarioFailure("screen '\(top.screen)' has errors:\n" + d.errors.map { "  \($0)" }.joined(separator: "\n"))
        }
        return prepared
    }

    /// Replaces the current screen by a mutated version of it (`s:mutate`), resolved with a cache
    /// of its own (its nodes are not the file's).
    func replaceCurrent(_ screen: Screen, check: ScreenCheck) -> Resolution {
        let params = simulator.current?.params ?? [:]
        // The mutated screen keeps its file's path (what the current entry was prepared from).
        let file = simulator.current.flatMap { cached(ScenarioSession.cacheKey($0)) }?.prepared ?? link.target.prepared
        let prepared = ScreenPipeline.replacing(file, screen: screen, check: check)
        let r = resolve(prepared, params: params)
        if let top = simulator.current {
            store(ScenarioSession.cacheKey(top), ResolvedScreen(prepared: prepared, resolution: r))
            layouts[ScenarioSession.cacheKey(top)] = nil
        }
        for d in r.diagnostics.errors where !resolutionErrors.contains(where: { $0.diagnostic == d }) {
            resolutionErrors.append((screenID, d))
        }
        return r
    }

    /// The state of the current screen (docs/data.md, "State"): as declared, then as taps
    /// changed it (nil: the screen declares none).
    func currentState() throws(ScenarioFailure) -> ScreenState? {
        guard let top = simulator.current else { return nil }
        let key = ScenarioSession.cacheKey(top)
        if let st = states[key] { return st }
        let entry = try currentEntry()
        guard let st = ws.screenState(file: entry.prepared.file).0 else { return nil }
        states[key] = st
        return st
    }

    /// A tap on a state action: the current screen's state changes, the screen is expanded
    /// again with it and resolved in place of the shown one; the changes are what
    /// `s:expect_change` reads (as after `s:mutate`).
    func apply(_ action: StateAction, to state: ScreenState) throws(ScenarioFailure) -> [TreeChange] {
        guard let top = simulator.current else {
            throw ScenarioFailure("there is no current screen: the navigation has ended (the entry flow finished)")
        }
        let (_, _, before) = try current()
        let entry = try currentEntry()
        let new = action.apply(to: state)
        var given: [String: ScreenState.Input] = [:]
        for (k, v) in new.values { given[k] = .value(v) }
        let data = top.screen == link.target.screen.id ? link.openedData : [:]
        let loaded = ScreenPipeline.prepare(file: entry.prepared.file, data: DataRequest(data: data, params: top.params, user: user, state: given), in: ws)
        guard let prepared = loaded.prepared, !loaded.diagnostics.hasErrors else {
            throw ScenarioFailure("screen '\(top.screen)' has errors with state \(new.text):\n" + loaded.diagnostics.errors.map { "  \($0)" }.joined(separator: "\n"))
        }
        let after = replaceCurrent(prepared.screen, check: prepared.check)
        states[ScenarioSession.cacheKey(top)] = new
        let changes = TreeDiffer(old: before.tree.map { TreeOutput.json($0, explain: false) },
                                 new: after.tree.map { TreeOutput.json($0, explain: false) }).changes
        lastChanges = changes
        return changes
    }

    /// Resolves the current screen (when there is one) so that its diagnostics are collected
    /// even when the scenario asks nothing about it; problems surface when it does.
    func resolveCurrent() {
        if simulator.current != nil { _ = try? currentEntry() }
    }

    /// The error diagnostics no expectation covers, and the expectations nothing matched.
    func strictness() -> (unexpected: [(screen: String, diagnostic: Diagnostic)], unmet: [(text: String, line: Int)]) {
        var met = Set<Int>()
        var unexpected: [(screen: String, diagnostic: Diagnostic)] = []
        for e in resolutionErrors {
            let text = e.diagnostic.description
            let matching = expectedDiagnostics.indices.filter { text.contains(expectedDiagnostics[$0].text) }
            if matching.isEmpty { unexpected.append(e) }
            met.formUnion(matching)
        }
        let unmet = expectedDiagnostics.indices.filter { !met.contains($0) }.map { expectedDiagnostics[$0] }
        return (unexpected, unmet)
    }

    func explained() throws(ScenarioFailure) -> (Screen, Resolution) {
        let c = try currentEntry()
        return (c.prepared.screen, resolve(c.prepared, params: simulator.current?.params ?? [:], explain: true))
    }

    /// A screen on the stack and its parameters: the same screen opened for another movie is
    /// another resolution.
    static func cacheKey(_ entry: NavigationEntry) -> String { cacheKey(screen: entry.screen, params: entry.params) }

    static func cacheKey(screen: String, params: [String: String]) -> String {
        guard !params.isEmpty else { return screen }
        return screen + "?" + params.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
    }
}

/// A component or item found in a resolved tree.
struct TreeMatch {
    var path: String
    var isItem: Bool
    var type: String
    var id: String?
    var title: String?
    var action: String?
    var props: JSONValue
    var hidden: Bool
    var hiddenReason: String?
    var rule: RuleTrace?
    /// Components: the serial (to relate to the screen model); items: -1.
    var serial: Int
    var itemPath: String?
    /// A component's path in the resolved tree (`root/children[0]/ui[1]`): how a node a builder
    /// created is named.
    var nodePath: String? = nil

    var label: String {
        var s = (isItem ? "item " : "") + type
        if let id { s += " #" + id }
        if isItem, let title { s += " \"\(title)\"" }
        return s
    }
}

/// Finding things in resolved trees and screens by what a scenario names them: a component's
/// id, an item's id, title or action (and a component's action), or a component's path
/// (`root/children[0]/ui[1]`, what names a node a builder created).
enum TreeSearch {
    enum Category: Int, CaseIterable {
        case componentID, itemID, itemTitle, action, nodePath
    }

    static func all(_ root: ResolvedNode?) -> [TreeMatch] {
        var out: [TreeMatch] = []
        func visit(_ n: ResolvedNode, path: String) {
            out.append(TreeMatch(
                path: path, isItem: false, type: n.type, id: n.id, title: nil, action: n.action, props: n.props,
                hidden: n.hidden, hiddenReason: n.hiddenReason, rule: n.rule, serial: n.serial, itemPath: nil, nodePath: n.path))
            if let h = n.header { visit(h, path: path + "/" + (h.id ?? "header")) }
            var perType: [String: Int] = [:]
            for c in n.children {
                let k = perType[c.type, default: 0]
                perType[c.type] = k + 1
                visit(c, path: path + "/" + (c.id ?? "\(c.type)[\(k)]"))
            }
            for (k, i) in (n.items ?? []).enumerated() {
                let ip = path + "/" + (i.id ?? "items[\(k)]")
                out.append(TreeMatch(
                    path: ip, isItem: true, type: i.kind ?? "item", id: i.id, title: i.title, action: i.action, props: i.props,
                    hidden: i.hidden, hiddenReason: i.hiddenReason, rule: i.rule, serial: -1, itemPath: i.path))
                var perType: [String: Int] = [:]
                for c in i.children {
                    let t = perType[c.type, default: 0]
                    perType[c.type] = t + 1
                    visit(c, path: ip + "/" + (c.id ?? "\(c.type)[\(t)]"))
                }
            }
            if let f = n.footer { visit(f, path: path + "/" + (f.id ?? "footer")) }
        }
        if let root { visit(root, path: root.id ?? root.type) }
        return out
    }

    static func matches(_ m: TreeMatch, _ x: String, _ c: Category) -> Bool {
        switch c {
        case .componentID: return !m.isItem && m.id == x
        case .itemID: return m.isItem && m.id == x
        case .itemTitle: return m.isItem && m.title == x
        case .action: return m.action == x
        case .nodePath: return !m.isItem && m.nodePath == x
        }
    }

    /// The matches of the first category that has any.
    static func find(_ x: String, in list: [TreeMatch], categories: [Category] = Category.allCases) -> [TreeMatch] {
        for c in categories {
            let found = list.filter { matches($0, x, c) }
            if !found.isEmpty { return found }
        }
        return []
    }

    /// Every name a scenario could use for something in the screen (for "did you mean").
    static func names(in screen: Screen) -> [String] {
        var out = OrderedSet<String>()
        screen.root.walk { c in
            if let id = c.id { out.append(id) }
            if let a = c.action { out.append(a) }
            for i in c.items {
                if let id = i.id { out.append(id) }
                if let t = i.title { out.append(t) }
                if let a = i.action { out.append(a) }
            }
        }
        return Array(out)
    }

    /// The chain of components (root first) leading to the component or item named `x` in the
    /// screen model, for explaining why it is absent from a resolved tree.
    static func chain(to x: String, in screen: Screen) -> [Component]? {
        var result: [Component]?
        func visit(_ c: Component, _ above: [Component]) {
            if result != nil { return }
            let here = above + [c]
            if c.id == x || c.action == x { result = here; return }
            for i in c.items where i.id == x || i.title == x || i.action == x {
                result = here
                return
            }
            if let h = c.header { visit(h, here) }
            for ch in c.children { visit(ch, here) }
            for i in c.items { for ch in i.children { visit(ch, here) } }
            if let f = c.footer { visit(f, here) }
        }
        visit(screen.root, [])
        return result
    }

    // MARK: Rule traces

    static func value(_ t: RuleTrace) -> String {
        if t.skipped { return "skipped (short-circuit)" }
        if let v = t.value { return v ? "true" : "false" }
        return "error" + (t.error.map { ": " + $0 } ?? "")
    }

    static func traceLines(_ t: RuleTrace, indent: String) -> [String] {
        var out = ["\(indent)rule \(t.expression) = \(value(t))  (\(t.location))"]
        func children(_ t: RuleTrace, _ indent: String) {
            for c in t.children {
                out.append("\(indent)· \(c.expression) = \(value(c))")
                children(c, indent + "  ")
            }
        }
        children(t, indent + "  ")
        return out
    }
}

/// A screen of a session's stack, checked and resolved for the session's user (one object, so
/// a cache hit copies one reference).
final class ResolvedScreen {
    let prepared: PreparedScreen
    let resolution: Resolution

    init(prepared: PreparedScreen, resolution: Resolution) {
        self.prepared = prepared
        self.resolution = resolution
    }
}

/// What one `t:open` argument opens (`ScenarioFileRunner.openTarget`).
final class OpenTarget {
    /// The argument, byte for byte.
    let argument: String
    /// The screen file located, parsed and checked by the pipeline (`ScreenPipeline.prepare`).
    let prepared: PreparedScreen
    var screen: Screen { prepared.screen }
    var check: ScreenCheck { prepared.check }
    let flows: FlowSet
    let entry: EntryPoint

    init(argument: String, prepared: PreparedScreen, flows: FlowSet, entry: EntryPoint) {
        self.argument = argument
        self.prepared = prepared
        self.flows = flows
        self.entry = entry
    }
}

/// What a session's navigation simulator reads the actions of its screens from: the session's
/// user and device, and the opened screen's resolution, handed over by the session's first
/// `current()` (`t:open`). One object, so the simulator's closures hold one reference.
final class SessionLink {
    let ws: Workspace
    let user: UserProfile
    let device: DeviceContext?
    let target: OpenTarget
    var slot: (key: String, resolution: Resolution)?
    /// The data `t:open(…, {data = …})` gave the opened screen: kept when a tap expands it again.
    var openedData: [String: DataValue] = [:]

    init(ws: Workspace, user: UserProfile, device: DeviceContext?, target: OpenTarget) {
        self.ws = ws
        self.user = user
        self.device = device
        self.target = target
    }

    /// The actions of screen `id` opened with `params`: the opened screen's from its handed-over
    /// resolution, any other's resolved for the session's user and device.
    func actions(screenID id: String, params: [String: String]) -> ScreenActions? {
        let opened = target.screen
        if id == opened.id, let h = slot, h.key == ScenarioSession.cacheKey(screen: id, params: params) {
            return ws.actions(of: h.resolution, file: opened.file)
        }
        // Rules may read the device: the actions are this session's device's.
        ws.useDevice(device)
        return ws.visibleActions(screenID: id, user: user, extra: opened, params: params)
    }
}
