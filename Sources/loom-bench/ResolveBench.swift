import Foundation
import LoomCore
import LoomPlugins
import LoomWorkspace
import LuaRuntime

// resolve — a generated reference screen (100 sections: labels, buttons, lists with a gated
// item each) resolved for one user, against bare lua_pcall (main.swift reports it).

func referenceScreen(sections: Int, bare: Bool = false) -> (String, components: Int, ruleNodes: Int, items: Int) {
    let label = bare ? "bare_label" : "label", button = bare ? "bare_label" : "button", list = bare ? "bare_list" : "list", stack = bare ? "bare_stack" : "stack"
    var comps = 1, ruleNodes = 0, items = 0
    var sectionTexts: [String] = []
    for s in 0..<sections {
        var children: [String] = []
        for k in 0..<5 { children.append(#"{"type": "\#(label)", "id": "l\#(s)_\#(k)", "meta": {"text": "Label \#(s).\#(k)"}}"#) }
        for k in 0..<5 { children.append(#"{"type": "\#(button)", "id": "b\#(s)_\#(k)", "meta": {"title": "Button \#(k)"}, "action": "detail:\#(s)"}"#) }
        comps += 11
        for k in 0..<4 {
            var its: [String] = []
            for m in 0..<8 {
                let rule = m == 0 ? (bare ? #", "rule": {"bare_version": {"app_version": "5.2.0"}}"# : #", "rule": {"at_least": {"app_version": "5.2.0"}}"#) : ""
                if m == 0 { ruleNodes += 1 }
                its.append(#"{"title": "Item \#(m)", "subtitle": "S\#(s)", "action": "item:\#(s)_\#(k)_\#(m)"\#(rule)}"#)
            }
            items += 8
            comps += 1
            children.append(#"{"type": "\#(list)", "id": "list\#(s)_\#(k)", "meta": {"title": "List \#(k)"}, "layout": {"span": 2, "item-spacing": 4}, "items": [\#(its.joined(separator: ","))]}"#)
        }
        ruleNodes += 4
        sectionTexts.append(#"{"type": "\#(stack)", "id": "section\#(s)", "rule": {"AND": ["is_gold_member", {"NOT": "is_churn_risk"}]}, "meta": {"spacing": 8}, "children": [\#(children.joined(separator: ","))]}"#)
    }
    let text = #"{"screen": "reference", "root": {"type": "\#(stack)", "id": "root", "children": [\#(sectionTexts.joined(separator: ","))]}}"#
    return (text, comps, ruleNodes, items)
}

struct ResolveFigures {
    var comps = 0, ruleNodes = 0, items = 0
    var us = 0.0, calls = 0.0, nsPerCall = 0.0, bare = 0.0
    /// Without the screen's tree cache: every resolution builds its tree.
    var coldUs = 0.0, coldCalls = 0.0
}

/// Resolves the reference screen for one user, `runs` times; the bare lua_pcall of the same
/// state is measured right after.
func resolveBench(bare bareBuilders: Bool, runs: Int, tmp: String) -> ResolveFigures {
    let (text, comps, ruleNodes, items) = referenceScreen(sections: 100, bare: bareBuilders)
    let file = tmp + "/screens/reference\(bareBuilders ? "-bare" : "").json"
    try! text.write(toFile: file, atomically: true, encoding: .utf8)
    var options = Workspace.Options()
    options.pluginHost = PluginEngine.host
    options.project = tmp
    let ws = try! Workspace(options: options)
    let loaded = ws.screen(file: file)
    let (screen, d, check) = (loaded.screen, loaded.diagnostics, loaded.check)
    precondition(!d.hasErrors, "reference screen: \(d.items)")
    let user = try! ws.users.user(named: "gold", context: [], now: nil).get()
    _ = ws.resolve(screen!, check: check!, user: user)  // warm the node tables
    var totalCalls = 0
    let t0 = now()
    for _ in 0..<runs {
        let ctx = ResolutionContext(user: user, screenID: "reference")
        _ = ws.resolver(screen!, check: check!).resolve(for: user, context: ctx)
        totalCalls += ctx.pluginCalls
    }
    let elapsed = Double(now() - t0)
    var f = ResolveFigures(comps: comps, ruleNodes: ruleNodes, items: items)
    let coldRuns = ProcessInfo.processInfo.environment["LOOM_BENCH_NO_COLD"] != nil ? 1 : max(5, runs / 10)
    var coldCalls = 0
    let c0 = now()
    for _ in 0..<coldRuns {
        let ctx = ResolutionContext(user: user, screenID: "reference")
        _ = Resolver(factory: ws.factory, screen: screen!, check: check!).resolve(for: user, context: ctx)
        coldCalls += ctx.pluginCalls
    }
    f.coldUs = Double(now() - c0) / Double(coldRuns) / 1000
    f.coldCalls = Double(coldCalls) / Double(coldRuns)
    f.calls = Double(totalCalls) / Double(runs)
    f.us = elapsed / Double(runs) / 1000
    f.nsPerCall = elapsed / Double(runs) / f.calls
    let fn = ws.engine.ruleFunction(named: "is_gold_member")!
    let ctx = ResolutionContext(user: user, screenID: "reference")
    let (userRef, nodeRef) = try! ws.engine.benchmarkTables(context: ctx, component: screen!.root)
    let n = 1_000_000
    let b0 = now()
    _ = ws.engine.state.benchmarkBarePCall(function: fn.ref, user: userRef, node: nodeRef, count: n)
    f.bare = Double(now() - b0) / Double(n)
    return f
}

// builder_call — the sample app's builder calls that reach Lua without a tree cache (docs/examples/movies:
// its plugins over the standard ones in Plugins/), per call, against a bare lua_pcall of the same
// builder functions on the same argument tables.

struct BuilderCallFigures {
    var screens = 0, users = 0
    /// Lua calls (builders and rules) per pass over every screen and user, and the builder calls among them.
    var calls = 0.0, builderCalls = 0
    /// The host's cost of a builder call (`LuaComponentBuilder.build` as the resolver calls it),
    /// and a bare protected call of the same function on the same argument tables made once.
    var hostNs = 0.0, bareNs = 0.0
    /// The whole-pass figure (secondary): a pass's time divided by its Lua calls (everything the
    /// resolutions do, the resolver's own work included), and rule_call's bare protected call.
    var resolutionNs = 0.0, resolutionBare = 0.0
    /// Builder calls a pass, by "type (kind)".
    var mix: [String: Int] = [:]
}

/// Resolves every screen of the sample app for every user of its users.json with a `Resolver`
/// that has no cache (every resolution builds its tree; the engine's per-component caches are
/// warm, as in a long-running host), and captures the component builder calls that reach Lua in
/// one pass (`PluginEngine.captureBuilderCalls`: those the engine's output caches do not answer).
/// Per round, interleaved, best of `runs` rounds:
/// - host: the captured calls made again `replays` times through the builder's own `build`,
///   each resolution's on fresh resolution tables (`PluginEngine.replayBuilderCalls`);
/// - bare: the same functions, each on the argument tables the host made for that call, made
///   once (`PluginEngine.bareBuilderCalls`), by plain lua_pcall, as many times;
/// - the whole passes (`passes` of them) and rule_call's bare lua_pcall (the bench project in
///   `tmp`), for the secondary figure.
/// Nil when docs/examples/movies is not found.
func builderCallBench(runs: Int, passes: Int, replays: Int, tmp: String) -> BuilderCallFigures? {
    let project = "docs/examples/movies"
    guard SafeFile.exists(project + "/loom.json") else { return nil }
    var options = Workspace.Options()
    options.pluginHost = PluginEngine.host
    options.project = project
    let ws = try! Workspace(options: options)
    var screens: [(Screen, ScreenCheck)] = []
    for (_, file) in ws.screenFiles().sorted(by: { $0.key < $1.key }) {
        let loaded = ws.screen(file: file)
        guard let s = loaded.screen, let c = loaded.check, !loaded.diagnostics.hasErrors else { continue }
        screens.append((s, c))
    }
    let users = ws.users.profiles.keys.sorted().map { try! ws.users.user(named: $0, context: [], now: nil).get() }
    precondition(!screens.isEmpty && !users.isEmpty, "builder_call: the sample app has no screens or users")
    func pass() -> (ns: Double, calls: Int) {
        var calls = 0
        let t0 = now()
        for (screen, check) in screens {
            for user in users {
                let ctx = ResolutionContext(user: user, screenID: screen.id)
                ws.prepare(ctx)
                _ = Resolver(factory: ws.factory, screen: screen, check: check).resolve(for: user, context: ctx)
                calls += ctx.pluginCalls
            }
        }
        return (Double(now() - t0), calls)
    }
    _ = pass()  // the engine's per-component tables and outputs, as a running host has them
    let capture = ws.engine.captureBuilderCalls { _ = pass() }
    var f = BuilderCallFigures(screens: screens.count, users: users.count)
    f.builderCalls = capture.calls
    f.mix = capture.mix
    precondition(f.builderCalls > 0, "builder_call: no builder call reached Lua in a pass")
    let check = ws.engine.replayBuilderCalls(capture)
    precondition(check.reached == f.builderCalls && check.succeeded == f.builderCalls,
                 "builder_call: \(check.reached) of \(f.builderCalls) replayed calls reached Lua, \(check.succeeded) succeeded")
    let bareCalls = try! ws.engine.bareBuilderCalls(capture)
    defer { ws.engine.releaseBareBuilderCalls(bareCalls) }
    let bareTables = ws.engine.state.benchmarkBarePCalls(bareCalls, rounds: 1)
    precondition(bareTables == bareCalls.count, "builder_call: \(bareCalls.count - bareTables) bare calls did not return a table")
    // The secondary figure's baseline is rule_call's: the bench project's `is_gold_member`
    // (`user.tier == "gold"`) on a user view and a node table, by bare lua_pcall.
    var benchOptions = Workspace.Options()
    benchOptions.pluginHost = PluginEngine.host
    benchOptions.project = tmp
    let bench = try! Workspace(options: benchOptions)
    let fn = bench.engine.ruleFunction(named: "is_gold_member")!
    let ctx = ResolutionContext(user: try! bench.users.user(named: "gold", context: [], now: nil).get(), screenID: screens[0].0.id)
    let (userRef, nodeRef) = try! bench.engine.benchmarkTables(context: ctx, component: screens[0].0.root)
    var host = Double.infinity, bare = Double.infinity, resolution = Double.infinity, ruleBare = Double.infinity
    let n = 200_000
    let made = Double(replays * f.builderCalls)
    for _ in 0..<runs {
        let h0 = now()
        for _ in 0..<replays { _ = ws.engine.replayBuilderCalls(capture) }
        host = min(host, Double(now() - h0) / made)
        let b0 = now()
        _ = ws.engine.state.benchmarkBarePCalls(bareCalls, rounds: replays)
        bare = min(bare, Double(now() - b0) / made)
        var ns = 0.0, calls = 0
        for _ in 0..<passes {
            let p = pass()
            ns += p.ns
            calls += p.calls
        }
        f.calls = Double(calls) / Double(passes)
        resolution = min(resolution, ns / Double(calls))
        let r0 = now()
        _ = bench.engine.state.benchmarkBarePCall(function: fn.ref, user: userRef, node: nodeRef, count: n)
        ruleBare = min(ruleBare, Double(now() - r0) / Double(n))
    }
    f.hostNs = host
    f.bareNs = bare
    f.resolutionNs = resolution
    f.resolutionBare = ruleBare
    return f
}
