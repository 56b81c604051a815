// The `layout` bench: a generated 1,000-node screen (50 Mortar containers of 19 labels, every
// node placed by its own constraints: 4,000 written single constraints) resolved through the
// real workspace, then laid out by LayoutEngine; against, in the same run, kiwisolver solving
// the exported system (scripts/layout-compare --bench) and a cold resolution of the screen.
// Also issue 38's screen: a vstack of 1,000 plain labels, its layout pass timed alone
// (`vstack_1000_ms`, target ≤ 50 ms).
import Foundation
import LoomCore
import LoomLayout
import LoomPlugins
import LoomWorkspace
import LoomSolver
import LoomStyles
import LoomText

struct LayoutBenchFigures {
    var nodes = 0, writtenConstraints = 0, constraints = 0, variables = 0
    var coldResolveMs = 0.0
    var layoutMs = 0.0
    /// Reading `outcome.system` (the export is built on demand, outside `layoutMs`).
    var exportMs = 0.0
    /// LoomSolver alone on the exported system (no tree, text or findings).
    var solveMs = 0.0
    /// kiwi's C++ (scripts/kiwi-anchor) on the same exported system, the same operations as
    /// `solveMs` (the constraints added in order, then updateVariables), or why it was skipped.
    var kiwiCppMs: Double?
    var kiwiCppSkipped: String?
    var kiwiMs: Double?
    var kiwiVersion: String?
    var skipped: String?
    var measurer = ""
    /// Issue 38: a vstack of 1,000 plain labels (`layoutBenchVstack`) laid out, best of the runs.
    var vstackLabels = 0
    var vstackMs = 0.0
    /// The same layouts' thread CPU time (best): steadier than wall time on a loaded machine.
    var vstackCPUMs = 0.0
    /// Its constraints (every one the pass states, definitions included).
    var vstackConstraints = 0
}

/// A measurer for machines without fonts: 8 points a character, 20-point lines.
final class BenchMeasurer: TextMeasuring {
    func measure(_ text: String, font: FontRequest, maxWidth: Double?, lines: Int?) -> TextMetrics {
        let w = Double(text.count) * 8
        return TextMetrics(face: FontFace(requested: font.name, name: font.name, file: "", isFallback: true), lines: [text],
                           width: w, height: 20, lineHeight: 20, ascender: 16, neededLines: 1, truncated: false)
    }
}

func layoutBenchScreen() -> (json: String, nodes: Int, written: Int) {
    var cards: [String] = []
    var nodes = 1, written = 0
    for c in 0..<50 {
        var labels: [String] = []
        for k in 0..<19 {
            let top = k == 0 ? "top == parent.top_margin" : "top == prev.bottom + 4"
            labels.append(#"{"type": "label", "id": "l\#(c)_\#(k)", "meta": {"text": "Item \#(c * 19 + k)"}, "constraints": ["leading == parent.leading_margin", "\#(top)", "width == parent.width * 0.5", "height >= 10 @ 500"]}"#)
            nodes += 1
            written += 4
        }
        let top = c == 0 ? "top == safe_area.top" : "top == prev.bottom + 8"
        cards.append(#"{"type": "container", "id": "card\#(c)", "constraints": ["sides == parent.side_margins", "\#(top)", "height == 470"], "children": [\#(labels.joined(separator: ","))]}"#)
        nodes += 1
        written += 4
    }
    return (#"{"screen": "layout", "root": {"type": "container", "id": "root", "children": [\#(cards.joined(separator: ","))]}}"#, nodes, written)
}

/// A vstack of `n` plain labels, the screen the issue found slow (11 s for 1,000 before the
/// stack's positions were defined; docs/layout.md, "Cost").
func layoutBenchVstack(_ n: Int) -> String {
    let labels = (0..<n).map { #"{"type": "label", "id": "v\#($0)", "meta": {"text": "Label \#($0)"}}"# }
    return #"{"screen": "vstack", "root": {"type": "vstack", "id": "column", "children": [\#(labels.joined(separator: ","))]}}"#
}

func layoutBench(runs: Int, tmp: String) -> LayoutBenchFigures {
    var f = LayoutBenchFigures()
    let root = tmp + "/layout-bench"
    try? FileManager.default.createDirectory(atPath: root + "/screens", withIntermediateDirectories: true)
    try! #"{"name": "layout-bench"}"#.write(toFile: root + "/loom.json", atomically: true, encoding: .utf8)
    try! #"{"a": {"tier": "gold"}}"#.write(toFile: root + "/users.json", atomically: true, encoding: .utf8)
    let (screen, nodes, written) = layoutBenchScreen()
    f.nodes = nodes
    f.writtenConstraints = written
    try! screen.write(toFile: root + "/screens/layout.json", atomically: true, encoding: .utf8)
    f.vstackLabels = 1000
    try! layoutBenchVstack(f.vstackLabels).write(toFile: root + "/screens/vstack.json", atomically: true, encoding: .utf8)
    let measurer: any TextMeasuring
    switch FontLibrary.shared {
    case .success(let lib): measurer = lib; f.measurer = "FontLibrary"
    case .failure: measurer = BenchMeasurer(); f.measurer = "fixed 8 pt advance (no fonts installed)"
    }
    let device = DeviceCatalog.device(named: "iphone-15")!
    var cold = Double.infinity, lay = Double.infinity, vstack = Double.infinity, vstackCPU = Double.infinity
    var outcome: LayoutOutcome?
    for _ in 0..<max(1, runs) {
        var options = Workspace.Options()
        options.pluginHost = PluginEngine.host
        options.project = root
        let ws = try! Workspace(options: options)
        let loaded = ws.screen(file: root + "/screens/layout.json")
        let s = loaded.screen!, check = loaded.check!
        let user = try! ws.users.user(named: "a", context: [], now: nil).get()
        var t0 = now()
        let r = ws.resolve(s, check: check, user: user)
        cold = min(cold, Double(now() - t0) / 1e6)
        precondition(!r.diagnostics.hasErrors, "layout bench: \(r.diagnostics.errors)")
        let engine = LayoutEngine(factory: ws.factory, measurer: measurer)
        t0 = now()
        let o = engine.layout(r.tree!, device: device, orientation: .portrait)
        lay = min(lay, Double(now() - t0) / 1e6)
        precondition(!o.diagnostics.contains { $0.severity == .error }, "layout bench: \(o.diagnostics)")
        outcome = o
        // The vstack: the layout pass alone (its resolution is not timed).
        let vl = ws.screen(file: root + "/screens/vstack.json")
        let vr = ws.resolve(vl.screen!, check: vl.check!, user: user)
        precondition(!vr.diagnostics.hasErrors, "layout bench (vstack): \(vr.diagnostics.errors)")
        for _ in 0..<3 {
            t0 = now()
            let c0 = cpuNow()
            let vo = engine.layout(vr.tree!, device: device, orientation: .portrait)
            vstackCPU = min(vstackCPU, Double(cpuNow() - c0) / 1e6)
            vstack = min(vstack, Double(now() - t0) / 1e6)
            precondition(!vo.diagnostics.contains { $0.severity == .error }, "layout bench (vstack): \(vo.diagnostics)")
            f.vstackConstraints = vo.system.constraints.count
        }
    }
    f.vstackMs = vstack
    f.vstackCPUMs = vstackCPU
    f.coldResolveMs = cold
    f.layoutMs = lay
    let t0 = now()
    let system = outcome!.system
    f.exportMs = Double(now() - t0) / 1e6
    f.constraints = system.constraints.count
    f.variables = system.variables.count
    // LoomSolver alone on the same system, variables registered first as kiwi's replay does.
    var solveBest = Double.infinity
    for _ in 0..<max(1, runs) {
        var s = Solver()
        let vars = system.variables.map { s.makeVariable(named: $0) }
        let cs = system.constraints.map { c in
            Constraint(LinearExpression(c.terms.map { (vars[$0.variable], $0.coefficient) }, constant: c.constant),
                       Relation(rawValue: c.relation)!, strength: c.strength)
        }
        let t0 = now()
        for c in cs { _ = try? s.add(c) }
        s.updateVariables()
        solveBest = min(solveBest, Double(now() - t0) / 1e6)
    }
    f.solveMs = solveBest
    // The anchor on the same operations (no variable registered first: LoomSolver's run above
    // registers none either), best of as many repetitions.
    var plain = ["loom-solver-system 1", "variables \(system.variables.count) repeat \(max(1, runs)) ops \(system.constraints.count)"]
    for c in system.constraints {
        plain.append("add \(c.relation) \(c.strength) \(c.constant) \(c.terms.count)" + c.terms.map { " \($0.variable) \($0.coefficient)" }.joined())
    }
    let plainFile = tmp + "/layout-bench.system"
    try! (plain.joined(separator: "\n") + "\n").write(toFile: plainFile, atomically: true, encoding: .utf8)
    switch kiwiCppRun(plainFile) {
    case .success(let k): f.kiwiCppMs = k.ms
    case .failure(let d): f.kiwiCppSkipped = d.message
    }
    guard let solverScript = ProcessInfo.processInfo.environment["LOOM_SOLVER_COMPARE"] else {
        f.skipped = "kiwisolver comparison skipped: LOOM_SOLVER_COMPARE is not set (scripts/bench sets it when kiwisolver is available)"
        return f
    }
    let script = (solverScript as NSString).deletingLastPathComponent + "/layout-compare"
    let file = ProcessInfo.processInfo.environment["LOOM_LAYOUT_BENCH_SYSTEM"] ?? (tmp + "/layout-bench-system.json")
    try! system.json.serialized(pretty: false).write(toFile: file, atomically: true, encoding: .utf8)
    // Through the one runner (Subprocess): a stuck comparison script is killed after 10 minutes.
    let data: Data
    switch Subprocess.run("python3", arguments: [script, "--bench", file],
                          limits: Subprocess.Limits(timeout: 600, maxOutputBytes: 64 << 20, maxErrorBytes: 1 << 20)) {
    case .success(let out): data = Data(out.stdout)
    case .failure(let d):
        f.skipped = "kiwisolver comparison skipped: \(d.message)"
        return f
    }
    guard let obj = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
          let ms = obj["ms"] as? Double else {
        f.skipped = "kiwisolver comparison skipped: \(script) --bench gave no timing (is kiwisolver installed?)"
        return f
    }
    f.kiwiMs = ms
    f.kiwiVersion = obj["kiwisolver"] as? String
    return f
}
