import Foundation
import LoomCore
import LoomPlugins
import LoomStyles

struct StylesBenchResult {
    var components = 0, styleFiles = 0, distinctStyles = 0
    /// Resolving the screen alone, and resolving it then reading each component's style from
    /// the run's `StyleTable` (built once per run through a `StyleCache`), in µs.
    var bareUs = 0.0, styledUs = 0.0
    var loadMs = 0.0
    /// A run's first resolution with styles: the screen plus every distinct style computed.
    var coldUs = 0.0
    var ratio: Double { styledUs / bareUs }
}

/// 200 property files (140 names, 30 `~iphone` and 30 `-667h` variants, imports two deep) and a
/// screen of about 1,000 components, each naming one of the styles.
func writeBenchStyles(_ dir: String) -> Int {
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    var files = 0
    func write(_ name: String, _ text: String) {
        try! text.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8)
        files += 1
    }
    for i in 0..<140 {
        let imports = i == 0 ? "" : #""@imports": ["S\#(i / 2)", "S0"], "#
        write("S\(i).json", ##"{\##(imports)"color": "#FF\##(String(format: "%04X", i))", "padding": "{\##(i), 2, 3, 4}", "radius": \##(Double(i) / 2), "font": {"name": "Avenir", "size": \##(12 + i % 6)}, "title": "style \##(i)", "shadow": {"width": 0, "height": \##(i % 3)}}"##)
    }
    for i in 0..<30 { write("S\(i)~iphone.json", ##"{"radius": 9, "tint": "#80000000"}"##) }
    for i in 0..<30 { write("S\(i + 30)-667h.json", #"{"padding": {"top": 1, "left": 2, "bottom": 3, "right": 4}}"#) }
    return files
}

func stylesBench(runs: Int, tmp: String) -> StylesBenchResult {
    var f = StylesBenchResult()
    let styles = tmp + "/styles-bench/styles"
    f.styleFiles = writeBenchStyles(styles)
    let l0 = now()
    let (library, ld) = StyleLibrary.load(folders: [styles])
    f.loadMs = Double(now() - l0) / 1e6
    precondition(ld.isEmpty, "bench styles: \(ld.items)")

    let (text, comps, _, _) = referenceScreen(sections: 67, bare: true)
    f.components = comps
    let file = tmp + "/screens/styles-bench.json"
    try! text.write(toFile: file, atomically: true, encoding: .utf8)
    var options = Workspace.Options()
    options.project = tmp
    let ws = try! Workspace(options: options)
    let loaded = ws.screen(file: file)
    let screen = loaded.screen!, check = loaded.check!
    let user = try! ws.users.user(named: "gold", context: [], now: nil).get()
    _ = ws.resolve(screen, check: check, user: user)

    // Each component names a style (`style` when integration lands; here by position).
    var components: [(serial: Int, names: [String], schema: StyleSchema?)] = []
    let schema = StyleSchema(["color": .color, "padding": .insets, "radius": .float, "font": .font, "title": .string,
                              "shadow": .size, "tint": .color], owner: "bare_label")
    func walk(_ c: Component) {
        components.append((c.serial, ["S\(components.count % 140)"], schema))
        c.children.forEach(walk)
    }
    walk(screen.root)
    let context = DeviceContext(device: DeviceCatalog.device(named: "iphone-8")!)

    func resolveOnce() {
        let ctx = ResolutionContext(user: user, screenID: "styles-bench")
        _ = ws.resolver(screen, check: check).resolve(for: user, context: ctx)
    }
    func bare() -> Double {
        let t0 = now()
        for _ in 0..<runs { resolveOnce() }
        return Double(now() - t0) / Double(runs) / 1000
    }
    // A run's first resolution computes every distinct style once (a fresh cache and table).
    var table = StyleTable(context: context, cache: StyleCache(library: library), components: [])
    func cold() -> Double {
        let t0 = now()
        resolveOnce()
        let cache = StyleCache(library: library)
        table = StyleTable(context: context, cache: cache, components: components)
        let elapsed = Double(now() - t0) / 1000
        f.distinctStyles = cache.count
        precondition(components.allSatisfy { table[$0.serial]?.diagnostics.isEmpty ?? false })
        return elapsed
    }
    // Later resolutions read each component's style from the table.
    // What a resolver does per component: read its style by serial (the loop walks plain serials,
    // not the (serial, names, schema) tuples, whose copies cost more than the reads).
    let serials = components.map(\.serial)
    func styled() -> Double {
        let t0 = now()
        var missing = 0
        for _ in 0..<runs {
            resolveOnce()
            let t = table
            for s in serials where t.json(s) == nil { missing += 1 }
        }
        precondition(missing == 0)
        return Double(now() - t0) / Double(runs) / 1000
    }
    // Interleaved, best of each (a noisy neighbour hurts both alike).
    var b = Double.infinity, s = Double.infinity, c = Double.infinity
    for _ in 0..<5 {
        b = min(b, bare())
        c = min(c, cold())
        s = min(s, styled())
    }
    f.bareUs = b
    f.styledUs = s
    f.coldUs = c
    return f
}
