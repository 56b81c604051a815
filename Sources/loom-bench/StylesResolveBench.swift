import Foundation
import LoomCore
import LoomPlugins

/// The `styles` target measured through the real resolver: a 1,000-component screen whose every
/// component names one of 140 styles (200 property files: imports two deep, `~iphone` and
/// `-667h` variants), resolved by `Workspace.resolve` with the project's styles, against the same
/// screen in a project without a styles folder. Both first resolutions (a fresh workspace
/// resolution cache: every builder runs) and later ones (other users, the caches warm).
struct StylesResolveFigures {
    var components = 0, styleFiles = 0
    var bareColdUs = 0.0, styledColdUs = 0.0, bareWarmUs = 0.0, styledWarmUs = 0.0
    /// Without the workspace's resolution caches (`resolveUncached`: a patched screen).
    var bareRebuiltUs = 0.0, styledRebuiltUs = 0.0
    var coldRatio: Double { styledColdUs / bareColdUs }
    var warmRatio: Double { styledWarmUs / bareWarmUs }
}

func stylesResolveBench(runs: Int, tmp: String) -> StylesResolveFigures {
    var f = StylesResolveFigures()
    let bareRoot = tmp + "/styles-resolve/bare", styledRoot = tmp + "/styles-resolve/styled"
    for root in [bareRoot, styledRoot] {
        try? FileManager.default.createDirectory(atPath: root + "/screens", withIntermediateDirectories: true)
        try! #"{"name": "styles-bench"}"#.write(toFile: root + "/loom.json", atomically: true, encoding: .utf8)
        try! #"{"a": {"tier": "gold"}, "b": {"tier": "free"}}"#.write(toFile: root + "/users.json", atomically: true, encoding: .utf8)
    }
    // 1,000 labels in 50 stacks of 20, each naming a style.
    var children: [String] = []
    var n = 0
    for s in 0..<50 {
        var labels: [String] = []
        for _ in 0..<19 {
            labels.append(#"{"type": "label", "id": "l\#(n)", "meta": {"text": "t\#(n)"}, "style": "S\#(n % 140)"}"#)
            n += 1
        }
        children.append(#"{"type": "stack", "id": "s\#(s)", "style": "S\#(s)", "children": [\#(labels.joined(separator: ","))]}"#)
        n += 1
    }
    let screen = #"{"screen": "bench", "root": {"type": "stack", "id": "root", "children": [\#(children.joined(separator: ","))]}}"#
    f.components = n + 1
    for root in [bareRoot, styledRoot] {
        try! screen.write(toFile: root + "/screens/bench.json", atomically: true, encoding: .utf8)
    }
    let styles = styledRoot + "/styles"
    try? FileManager.default.createDirectory(atPath: styles, withIntermediateDirectories: true)
    func write(_ name: String, _ text: String) {
        try! text.write(toFile: styles + "/" + name, atomically: true, encoding: .utf8)
        f.styleFiles += 1
    }
    for i in 0..<140 {
        let imports = i == 0 ? "" : #""@imports": ["S\#(i / 2)", "S0"], "#
        write("S\(i).json", ##"{\##(imports)"color": "#FF\##(String(format: "%04X", i))", "padding": "{\##(i), 2, 3, 4}", "radius": \##(Double(i) / 2), "font": {"name": "Avenir", "size": \##(12 + i % 6)}, "title": "style \##(i)"}"##)
    }
    for i in 0..<30 { write("S\(i)~iphone.json", ##"{"radius": 9, "tint": "#80000000"}"##) }
    for i in 0..<30 { write("S\(i + 30)-667h.json", #"{"padding": {"top": 1, "left": 2, "bottom": 3, "right": 4}}"#) }

    func measure(_ root: String) -> (cold: Double, warm: Double, rebuilt: Double) {
        var cold = Double.infinity, warm = Double.infinity, rebuilt = Double.infinity
        for _ in 0..<max(1, runs / 4) {
            var options = Workspace.Options()
            options.project = root
            let ws = try! Workspace(options: options)
            let loaded = ws.screen(file: root + "/screens/bench.json")
            let s = loaded.screen!, check = loaded.check!
            _ = ws.styleCache  // the property files are read once per workspace, before any resolution
            let a = try! ws.users.user(named: "a", context: [], now: nil).get()
            let b = try! ws.users.user(named: "b", context: [], now: nil).get()
            // A first resolution: every builder runs (and, styled, every distinct style resolves).
            var t0 = now()
            let r = ws.resolve(s, check: check, user: a)
            cold = min(cold, Double(now() - t0) / 1000)
            precondition(!r.diagnostics.hasErrors, "styles bench: \(r.diagnostics.errors)")
            t0 = now()
            for k in 0..<runs { _ = ws.resolve(s, check: check, user: k % 2 == 0 ? b : a) }
            warm = min(warm, Double(now() - t0) / Double(runs) / 1000)
            t0 = now()
            for _ in 0..<runs { _ = ws.resolveUncached(s, check: check, user: a) }
            rebuilt = min(rebuilt, Double(now() - t0) / Double(runs) / 1000)
        }
        return (cold, warm, rebuilt)
    }
    // Interleaved, best of each (a noisy neighbour hurts both alike).
    for _ in 0..<3 {
        let b = measure(bareRoot), s = measure(styledRoot)
        f.bareColdUs = f.bareColdUs == 0 ? b.cold : min(f.bareColdUs, b.cold)
        f.styledColdUs = f.styledColdUs == 0 ? s.cold : min(f.styledColdUs, s.cold)
        f.bareWarmUs = f.bareWarmUs == 0 ? b.warm : min(f.bareWarmUs, b.warm)
        f.styledWarmUs = f.styledWarmUs == 0 ? s.warm : min(f.styledWarmUs, s.warm)
        f.bareRebuiltUs = f.bareRebuiltUs == 0 ? b.rebuilt : min(f.bareRebuiltUs, b.rebuilt)
        f.styledRebuiltUs = f.styledRebuiltUs == 0 ? s.rebuilt : min(f.styledRebuiltUs, s.rebuilt)
    }
    return f
}
