import Foundation
import LoomCore
import LoomPlugins
import LoomWorkspace
import LoomTesting

/// What `openBench` measured: `t:open` in a `host test` scenario against the same screen's
/// resolution alone for the same users (thread CPU time, one thread).
struct OpenBenchResult {
    var opens: Int
    /// Per open: the scenario with `opens` opens, less the same scenario with none (loading the
    /// project and the file), divided by `opens`.
    var openUs: Double
    /// Per resolution: the screen resolved for the same users in turn by `Workspace.resolve`
    /// (its tree cache warm, as a scenario's workspace is after the first opens): the rules.
    var rulesUs: Double
    var beyondRulesUs: Double { openUs - rulesUs }
    var ratio: Double { openUs / rulesUs }
}

/// `scenario_open`: a scenario opening the sample app's home `opens` times, alternating the
/// profiles `gold` and `free` (nothing asked of the sessions), run in process by
/// `ScenarioRunner` at `--jobs 1`, against a workspace resolving home for the same users in
/// turn. Best of `runs` for each (interleaved). Nil when docs/examples/movies is not found.
func openBench(opens: Int, runs: Int) -> OpenBenchResult? {
    let project = "docs/examples/movies"
    guard SafeFile.exists(project + "/screens/home.json") else { return nil }
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("loom-bench-open-\(getpid())").path
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    func scenario(_ n: Int) -> ScenarioFile {
        let path = dir + "/open\(n).lua"
        let text = """
        scenario("open home \(n) times", function(t)
          local users = { "gold", "free" }
          for i = 1, \(n) do t:open("home", { user = users[i % 2 + 1] }) end
        end)

        """
        try! text.write(toFile: path, atomically: true, encoding: .utf8)
        return ScenarioFile(path: path, projectRoot: project)
    }
    let full = scenario(opens), empty = scenario(0)
    var options = ScenarioOptions()
    options.jobs = 1  // runs on this thread: its CPU time is the scenario's
    options.ci = true

    func runScenario(_ file: ScenarioFile) -> Double {
        let t0 = cpuNow()
        let outcomes = ScenarioRunner.run(files: [file], options: options)
        let ns = Double(cpuNow() - t0)
        guard outcomes.count == 1, outcomes[0].results.count == 1, outcomes[0].results[0].status == .passed else {
            let messages = outcomes.flatMap(\.results).map { "  \($0.name): \($0.message ?? $0.status.rawValue)" }
            FileHandle.standardError.write(Data((["loom-bench scenario_open: the scenario did not pass"] + messages).joined(separator: "\n").utf8 + [10]))
            try? FileManager.default.removeItem(atPath: dir)
            try? FileManager.default.removeItem(atPath: tmp)
            exit(1)
        }
        return ns
    }

    var o = Workspace.Options()

    o.pluginHost = PluginEngine.host
    o.project = project
    let ws = try! Workspace(options: o)
    // As a scenario file's workspace: each plugin's view of a user is kept across resolutions.
    ws.engine.userViewReuse = 16
    let loaded = ws.screen(file: ws.screenFiles()["home"]!)
    let home = loaded.screen!, check = loaded.check!
    let users = ["gold", "free"].map { try! ws.users.user(named: $0, context: [], now: nil).get() }
    for u in users { _ = ws.resolve(home, check: check, user: u) }
    func runRules() -> Double {
        let t0 = cpuNow()
        for i in 1...opens { _ = ws.resolve(home, check: check, user: users[i % 2]) }
        return Double(cpuNow() - t0)
    }

    var withOpens = Double.infinity, without = Double.infinity, rules = Double.infinity
    for _ in 0..<runs {
        withOpens = min(withOpens, runScenario(full))
        without = min(without, runScenario(empty))
        rules = min(rules, runRules())
    }
    let n = Double(opens)
    return OpenBenchResult(opens: opens, openUs: (withOpens - without) / n / 1e3, rulesUs: rules / n / 1e3)
}
