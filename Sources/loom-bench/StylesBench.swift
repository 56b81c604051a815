import Foundation
import LoomCore
import LoomPlugins
import LoomWorkspace
import LoomStyles

/// Bench `styles` (issue 11): a 1,000-component screen whose every component names one of 140
/// styles (200 property files: imports two deep, `~iphone` and `-667h` variants), resolved by
/// the real resolver (`Workspace.resolve`) in a project with a styles folder, against the same
/// screen in a project without one, both for `iphone-8`. Three figures, each against its baseline:
/// - the first resolution (the headline): a fresh workspace, every builder runs and, styled,
///   every distinct style is computed once;
/// - uncached (`resolveUncached`: builders' caches warm, no resolution cache);
/// - a cached tree (later resolutions for other users).
/// Each figure is the resolving thread's CPU time, best of the samples (see `stylesBench`).
struct StylesFigures {
    var components = 0, styleFiles = 0, distinctStyles = 0
    /// Reading and parsing the property files (once per workspace, before any resolution).
    var loadMs = Double.infinity
    var bareColdUs = 0.0, styledColdUs = 0.0, bareWarmUs = 0.0, styledWarmUs = 0.0
    var bareUncachedUs = 0.0, styledUncachedUs = 0.0
    var coldRatio: Double { styledColdUs / bareColdUs }
    var warmRatio: Double { styledWarmUs / bareWarmUs }
    var uncachedRatio: Double { styledUncachedUs / bareUncachedUs }
}

func stylesBench(runs: Int, tmp: String) -> StylesFigures {
    var f = StylesFigures()
    let bareRoot = tmp + "/styles-bench/bare", styledRoot = tmp + "/styles-bench/styled"
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

    // The device whose cascade the `-667h` variants are for (and `~iphone`).
    let device = try! DeviceContext.parse(device: "iphone-8", orientation: nil, traits: nil).get()
    // One sample of a project: a fresh workspace's first resolution, then `repeats` times `runs`
    // cached resolutions and one uncached (each figure the best of its own).
    let repeats = max(2, runs / 4)
    func measure(_ root: String) -> (cold: Double, warm: Double, uncached: Double) {
        var options = Workspace.Options()
        options.pluginHost = PluginEngine.host
        options.project = root
        options.device = device  // as `host run --device iphone-8`, for both projects
        let ws = try! Workspace(options: options)
        let loaded = ws.screen(file: root + "/screens/bench.json")
        let s = loaded.screen!, check = loaded.check!
        // The property files are read once per workspace, before any resolution.
        let l0 = cpuNow()
        _ = ws.styleCache
        if root == styledRoot { f.loadMs = min(f.loadMs, Double(cpuNow() - l0) / 1e6) }
        let a = try! ws.users.user(named: "a", context: [], now: nil).get()
        let b = try! ws.users.user(named: "b", context: [], now: nil).get()
        // A first resolution: every builder runs (and, styled, every distinct style resolves).
        var t0 = cpuNow()
        let r = ws.resolve(s, check: check, user: a)
        let cold = Double(cpuNow() - t0) / 1000
        precondition(!r.diagnostics.hasErrors, "styles bench: \(r.diagnostics.errors)")
        if root == styledRoot { f.distinctStyles = ws.styleCache.count }
        var warm = Double.infinity, uncached = Double.infinity
        for _ in 0..<repeats {
            t0 = cpuNow()
            for k in 0..<runs { _ = ws.resolve(s, check: check, user: k % 2 == 0 ? b : a) }
            warm = min(warm, Double(cpuNow() - t0) / Double(runs) / 1000)
            t0 = cpuNow()
            _ = ws.resolveUncached(s, check: check, user: a)
            uncached = min(uncached, Double(cpuNow() - t0) / 1000)
        }
        return (cold, warm, uncached)
    }
    // Interleaved sample by sample (the order alternating), best of each: a noisy neighbour on
    // this shared machine hurts both alike, and each figure is the CPU time of the resolving
    // thread (time spent descheduled is not counted).
    var bare = (cold: Double.infinity, warm: Double.infinity, uncached: Double.infinity), styled = bare
    for round in 0..<max(4, runs) {
        for root in round % 2 == 0 ? [bareRoot, styledRoot] : [styledRoot, bareRoot] {
            let m = measure(root)
            if root == bareRoot {
                bare = (min(bare.cold, m.cold), min(bare.warm, m.warm), min(bare.uncached, m.uncached))
            } else {
                styled = (min(styled.cold, m.cold), min(styled.warm, m.warm), min(styled.uncached, m.uncached))
            }
        }
    }
    (f.bareColdUs, f.bareWarmUs, f.bareUncachedUs) = bare
    (f.styledColdUs, f.styledWarmUs, f.styledUncachedUs) = styled
    return f
}
