import Foundation
import LoomCache
import LoomCore
import LoomPlugins
import LoomWorkspace

/// `cache`: the sample app's home screen for gold, cold (load the plugins, parse, check,
/// resolve, render, save) against warm (hash every input, find the entry, read it), in one
/// process and one run. The warm path is what `host run --cache-key` does on a hit.
func cacheBench(runs: Int) -> (coldMs: Double, warmMs: Double)? {
    let project = "docs/examples/movies"
    let screen = project + "/screens/home.json"
    guard SafeFile.exists(screen) else { return nil }
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("loom-bench-cache-\(getpid())").path
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let cache = ViewStateCache(directory: dir, fileLimits: .standard)
    var inputs = RunInputs(projectRoot: project, screen: screen, pluginDirs: [PluginDiscovery.standardPluginsDirectory()], fileLimits: .standard)
    inputs.arguments = ["user gold"]
    func cold() -> Bool {
        var o = Workspace.Options()
        o.pluginHost = PluginEngine.host
        o.project = project
        guard let ws = try? Workspace(options: o, anchor: screen), let s = ws.screen(file: screen).screen,
              let check = ws.screen(file: screen).check, case .success(let user) = ws.users.user(named: "gold", context: [], now: nil)
        else { return false }
        let r = ws.resolve(s, check: check, user: user)
        let json = r.tree.map { TreeOutput.json($0, explain: false) } ?? .null
        let graph = ws.navigationGraph(from: s, user: user).json
        let entry: JSONValue = .object(["screen": .string(s.id), "json": .string(JSONValue.object(["tree": json, "graph": graph]).serialized(pretty: true))])
        return (try? cache.save(key: "home-gold", inputs: inputs.hash, entry: entry)) != nil
    }
    func warm() -> Bool {
        if case .hit(let e) = cache.lookup(key: "home-gold", inputs: inputs.hash) { return e["json"]?.string != nil }
        return false
    }
    guard cold(), warm() else { return nil }
    var coldNs: [UInt64] = [], warmNs: [UInt64] = []
    for _ in 0..<runs {
        var t = now()
        _ = cold()
        coldNs.append(now() - t)
        t = now()
        _ = warm()
        warmNs.append(now() - t)
    }
    func median(_ xs: [UInt64]) -> Double { Double(xs.sorted()[xs.count / 2]) / 1e6 }
    return (median(coldNs), median(warmNs))
}
