import Foundation
import LoomCore
import LoomPlugins
import LoomWorkspace
import LoomPopulation
import LuaRuntime

/// What `populationBench` measured (W1 of issue 14): seeded users through a screen of 8
/// components, each gated by one Lua rule, by `host eval --select visible`'s own pipeline
/// (in-process: reading JSON Lines, parsing, resolving, writing lines), against the same rules
/// over the same users in one bare Lua state (the floor: per user, build the user's table and
/// call the 8 rule functions; the users' values are in Lua arrays before timing).
struct PopulationBenchResult {
    var users = 0
    var hostNs = 0.0, floorNs = 0.0, targetingNs = 0.0
    var jobs2Ns = 0.0
    /// `--jobs 1` in wall time (what `scaling` divides).
    var hostWallNs = 0.0
    var streamedUsers = 0
    /// Interleaved rounds run (41, or more while the machine was busy: `populationBench`).
    var rounds = 0
    var rssAfterW1MB = 0.0, rssAfterStreamMB = 0.0
    var ratio: Double { hostNs / floorNs }
    var scaling: Double { hostWallNs / jobs2Ns }
    /// `--jobs 1` over `--jobs 2` wall time on the streamed users.
    var streamedScaling = 0.0
    /// What this machine gives two threads of the same kind of work, in the same run: the floor
    /// in two bare Lua states on two threads at once, against one alone (wall time; twice the
    /// work over the pair's time). No Loom code, no sharing, no synchronisation: what the
    /// machine gives this kind of work at the moment, for `scaling` to be read against.
    var floorAloneWallNs = 0.0, floorPairWallNs = 0.0
    var floorScaling: Double { 2 * floorAloneWallNs / floorPairWallNs }
    /// `scaling` over `floorScaling`: how much of what the machine gives the floor Loom gets.
    var scalingOfFloor: Double { scaling / floorScaling }
    /// Two `--jobs 1` runs of the same pipeline over the same users at once (`pipelinePair`),
    /// against `hostWallNs` (one alone): what the machine gives two threads of this very work,
    /// the ceiling for `scaling` (twice the work over the pair's wall time).
    var pipelinePairWallNs = 0.0
    var pipelineScaling: Double { 2 * hostWallNs / pipelinePairWallNs }
    /// `scaling` over `pipelineScaling`: how much of that ceiling `--jobs 2` reaches.
    var scalingOfPipeline: Double { scaling / pipelineScaling }

    /// W1 with every Lua rule called for every user (`LOOM_EVAL_NO_MEMO=1`: no memo, the
    /// outcome-key cache still on), against the same floor (thread CPU time per user).
    var nomemoNs = 0.0, nomemoFloorNs = 0.0
    var nomemoRatio: Double { nomemoNs / nomemoFloorNs }
    /// W2 (issue 38): W1's users each with an `id`, W1's 8 gates and a standard rollout sticky
    /// on `id`; its floor the same nine rules in one bare Lua state.
    var w2Users = 0
    var w2HostNs = 0.0, w2FloorNs = 0.0
    var w2Ratio: Double { w2HostNs / w2FloorNs }
    var w2Rounds = 0
    /// W2's users streamed again and again (ids repeating every `w2Users`), peak RSS after.
    var w2StreamedUsers = 0
    var rssAfterW2StreamMB = 0.0
    /// The peak RSS of a `--jobs 1` run over the stream's first tenth alone (`w2TenthUsers`),
    /// and the RSS the process held before either run (what neither run can go below): with
    /// the peak reset before each run (`rssPeakReset`; when it could not be, both peaks are
    /// the process's own so far and the ratio tells nothing).
    var w2TenthUsers = 0
    var rssTenthStreamMB = 0.0, rssBeforeStreamMB = 0.0, rssBeforeWholeStreamMB = 0.0
    /// What each run added to the RSS it started from: its own memory (the worker's, its
    /// workspace's, the reader's), and the whole stream's over the tenth's (≈ 1.0 when flat).
    var rssAddedTenthMB: Double { rssTenthStreamMB - rssBeforeStreamMB }
    var rssAddedStreamMB: Double { rssAfterW2StreamMB - rssBeforeWholeStreamMB }
    var rssAddedGrowth: Double { rssAddedStreamMB / max(rssAddedTenthMB, 0.1) }
    var rssPeakReset = false
    /// Peak RSS over the whole stream against over its tenth (1,000,000 users against 100,000
    /// in the full bench): ≈ 1.0 when a worker's memory is flat in the users it has seen.
    var rssGrowth: Double { rssAfterW2StreamMB / rssTenthStreamMB }
    /// The cores this process may use, and `--jobs N` wall time against `--jobs 1` on W2's
    /// users through W1's screen, for each N up to the cores (2, 4, 8, 16).
    var cores = 0
    var scalingByJobs: [(jobs: Int, scaling: Double)] = []
    /// The reading thread's share of a JSON Lines run, which no number of workers takes off
    /// it (thread CPU time per user over W2's users, 256 lines at a time): lines only counted
    /// and copied for the workers to split (`RecordReader.nextBlock`, what `host eval` does),
    /// against each line made into a record on the reading thread (`nextLines`, what it did).
    var readerBlockNs = 0.0, readerLinesNs = 0.0
}

/// The reading thread's cost per user of `file` (thread CPU time, best of `rounds`
/// interleaved): through `nextBlock` (the records made by the workers) and through `nextLines`.
private func readerCost(_ file: String, users: Int, rounds: Int = 7) -> (block: Double, lines: Double) {
    var best = (block: Double.infinity, lines: Double.infinity)
    for _ in 0..<rounds {
        for byBlock in [true, false] {
            let reader = try! RecordReader.open(file, csvQuotes: false).get()
            var records = 0
            let c0 = cpuNow()
            while true {
                var block = LineBlock()
                let more = byBlock ? reader.nextBlock(max: 256, into: &block) : reader.nextLines(max: 256, into: &block)
                records += byBlock ? block.recordCount : block.records.count
                if !more { break }
            }
            let ns = Double(cpuNow() - c0) / Double(users)
            precondition(records == users, "reader bench: \(records) lines for \(users) users")
            if byBlock { best.block = min(best.block, ns) } else { best.lines = min(best.lines, ns) }
        }
    }
    return best
}

/// The 8 rules, as a plugin (`w1_*`) and as plain Lua functions (`floor`). The SemVer rule parses
/// the version on every call (what a plain-Lua engine does).
private let w1Rules = """
local NORDIC = { NO = true, SE = true, DK = true, FI = true, IS = true }
local function semver_at_least(v, a0, b0, c0)
  if type(v) ~= "string" then return false end
  local a, b, c = string.match(v, "^(%d+)%.(%d+)%.(%d+)")
  if not a then return false end
  a, b, c = tonumber(a), tonumber(b), tonumber(c)
  if a ~= a0 then return a > a0 end
  if b ~= b0 then return b > b0 end
  return c >= c0
end
local R = {
  w1_gold = function(user) return user.tier == "gold" end,
  w1_churn = function(user) return (user.churn_score or 0) >= 0.8 end,
  w1_version = function(user) return semver_at_least(user.app_version, 5, 2, 0) end,
  w1_nordic = function(user) return NORDIC[user.country] == true end,
  w1_adult = function(user) return (user.age or 0) >= 18 end,
  w1_beta = function(user) return user.beta == true end,
  w1_ios = function(user) return user.platform == "ios" end,
  w1_engaged = function(user) return (user.sessions or 0) > 10 end,
}
"""

/// The 8 gates, in screen order: rule name, negated.
private let w1Gates: [(String, Bool)] = [
    ("w1_gold", false), ("w1_churn", true), ("w1_version", false), ("w1_nordic", false),
    ("w1_adult", false), ("w1_beta", false), ("w1_ios", false), ("w1_engaged", false),
]

/// The same gates with the standard targeting rules (arguments parsed once per screen).
private let w1Targeting = [
    #"{"equals": {"tier": "gold"}}"#, #"{"NOT": {"at_least": {"churn_score": 0.8}}}"#,
    #"{"at_least": {"app_version": "5.2.0"}}"#, #"{"in": {"country": ["NO", "SE", "DK", "FI", "IS"]}}"#,
    #"{"at_least": {"age": 18}}"#, #"{"equals": {"beta": true}}"#, #"{"equals": {"platform": "ios"}}"#,
    #"{"at_least": {"sessions": 11}}"#,
]

/// Seeded users (same seed, same users): tier, country, version, age, churn, beta, platform,
/// sessions; some attributes absent.
func w1Users(_ n: Int, seed: UInt64 = 14) -> [[(String, JSONValue)]] {
    var s = seed
    func next(_ m: Int) -> Int { s = s &* 6364136223846793005 &+ 1442695040888963407; return Int((s >> 33) % UInt64(m)) }
    let tiers = ["gold", "silver", "free"], countries = ["NO", "SE", "DK", "FI", "DE", "US", "IS", "FR"]
    let versions = ["5.1.0", "5.2.0", "5.2.3", "5.3.0", "6.0.0", "4.9.9"], platforms = ["ios", "android", "web"]
    return (0..<n).map { i in
        var u: [(String, JSONValue)] = [("name", .string("u\(i)")), ("tier", .string(tiers[next(3)])),
                                         ("country", .string(countries[next(8)])), ("app_version", .string(versions[next(6)]))]
        if next(5) > 0 { u.append(("age", .int(13 + next(60)))) }
        if next(4) > 0 { u.append(("churn_score", .double(Double(next(100)) / 100))) }
        u.append(("beta", .bool(next(3) == 0)))
        u.append(("platform", .string(platforms[next(3)])))
        if next(6) > 0 { u.append(("sessions", .int(next(40)))) }
        return u
    }
}

/// W2's ninth gate (issue 38): a standard rollout sticky on `id`, which every user has a value
/// of their own for (no memo helps: the rule is called for every user).
private let w2Rollout = #"{"rollout": {"percent": 10, "group": "w2"}}"#

/// W2's users: W1's (same seed) each with an `id` of their own.
func w2Users(_ n: Int) -> [[(String, JSONValue)]] {
    w1Users(n).enumerated().map { i, u in
        var u = u
        u.insert(("id", .string("user-" + String(i + 1_000_000).dropFirst())), at: 1)
        return u
    }
}

/// W1's project (screen `w1`), or W2's (`rollout`: screen `w2`, W1's gates and the rollout).
private func writeW1Project(at dir: String, targeting: Bool, rollout: Bool = false) {
    try? FileManager.default.createDirectory(atPath: dir + "/plugins/w1", withIntermediateDirectories: true)
    try? FileManager.default.createDirectory(atPath: dir + "/screens", withIntermediateDirectories: true)
    let registrations = w1Gates.map { "    host.rule(\"\($0.0)\", R.\($0.0))" }.joined(separator: "\n")
    try! (w1Rules + "\nreturn { name = \"w1\", version = \"1.0.0\", api = 1, register = function(host)\n\(registrations)\nend }\n")
        .write(toFile: dir + "/plugins/w1/plugin.lua", atomically: true, encoding: .utf8)
    var children: [String] = []
    for (k, g) in w1Gates.enumerated() {
        let rule = targeting ? w1Targeting[k] : (g.1 ? #"{"NOT": "\#(g.0)"}"# : #""\#(g.0)""#)
        children.append(#"{"type": "label", "id": "c\#(k + 1)", "meta": {"text": "C\#(k + 1)"}, "rule": \#(rule)}"#)
    }
    if rollout { children.append(#"{"type": "label", "id": "c9", "meta": {"text": "C9"}, "rule": \#(w2Rollout)}"#) }
    let screen = rollout ? "w2" : "w1"
    try! #"{"screen": "\#(screen)", "root": {"type": "stack", "id": "root", "children": [\#(children.joined(separator: ", "))]}}"#
        .write(toFile: dir + "/screens/\(screen).json", atomically: true, encoding: .utf8)
    try! "{}".write(toFile: dir + "/loom.json", atomically: true, encoding: .utf8)
}

/// Writes `users` as JSON Lines, a megabyte at a time (a lazy sequence is never held whole).
private func writeJSONL<S: Sequence>(_ users: S, to path: String) where S.Element == [(String, JSONValue)] {
    _ = FileManager.default.createFile(atPath: path, contents: nil)
    let h = FileHandle(forWritingAtPath: path)!
    var text = ""
    for u in users {
        text += JSONValue.object(.init(uniqueKeysWithValues: u)).serialized(pretty: false) + "\n"
        if text.utf8.count > 1 << 20 { h.write(Data(text.utf8)); text = "" }
    }
    h.write(Data(text.utf8))
    try? h.close()
}

/// `host eval --select visible` over a JSONL file, in-process, with `jobs` workers; returns
/// the elapsed nanoseconds (with one job: the calling thread's CPU time, which runs the whole
/// pipeline; with more: wall time) and the wall time.
private func hostEval(project: String, users: String, jobs: Int, output: String, screen: String = "w1", memo: Bool = true) -> (ns: Double, wall: Double) {
    PreparedEval(project: project, users: users, jobs: jobs, output: output, screen: screen, memo: memo).run()
}

/// Per component id, how many users of an eval output see it.
private func seenCounts(_ output: String) -> [String: Int] {
    var seen: [String: Int] = [:]
    if let text = try? String(contentsOfFile: output, encoding: .utf8), text.utf8.count < 64 << 20 {
        for line in text.split(separator: "\n") {
            guard let v = JSONReader.parseValue(String(line))?["visible"]?.array else { continue }
            for id in v { if let s = id.string { seen[s, default: 0] += 1 } }
        }
    }
    return seen
}

/// One `host eval` run made ready as `host eval` makes it: the users' file opened, the worker
/// threads started, each opening its own workspace (plugins loaded, screen checked) on its own
/// thread, and the caller's workspace opened meanwhile; ready when every one is open. `run`
/// times the users going through (once).
final class PreparedEval {
    private let jobs: Int, output: String
    private let input: UserInput
    private let workers: PopulationWorkers<UserBatch, EvalChunk>

    /// `screen`: the project's screen (`screens/SCREEN.json`); `memo`: false as under
    /// `LOOM_EVAL_NO_MEMO=1` (every Lua rule called for every user).
    init(project: String, users: String, jobs: Int, output: String, screen: String = "w1", memo: Bool = true) {
        self.jobs = jobs
        self.output = output
        var o = Workspace.Options()
        o.pluginHost = PluginEngine.host
        o.project = project
        let options = o
        input = try! UserInput.open(users, format: .jsonl, workers: jobs, fileLimits: .standard).get()
        let writer = EvalLineWriter(format: .jsonl, select: .visible)
        let parser = input.parser, shared = jobs > 1 ? SharedAnswers() : nil, opened = DispatchSemaphore(value: 0)
        let open: @Sendable () -> PopulationScreens = {
            // The screen by its file, not its id: an id is first looked up as a path from the
            // working directory, where a `w1` of another kind may lie.
            let (s, d) = PopulationScreens.open(options: options, screens: [project + "/screens/\(screen).json"])
            precondition(s != nil && !d.hasErrors, "\(screen) project: \(d.items)")
            return s!
        }
        let work: @Sendable (PopulationScreens) -> (UserBatch) -> EvalChunk = { screens in
            let w = EvalWorker(screens: screens, parser: parser, writer: writer, shared: shared, memo: memo)
            return { w.process($0) }
        }
        workers = PopulationWorkers<UserBatch, EvalChunk>(threads: jobs - 1, eager: jobs - 1) {
            let w = work(open())
            opened.signal()
            return w
        }
        // The caller's worker is made at its first batch, as in `host eval`, but its workspace
        // is opened here, before the clock, like every other.
        let screens = open()
        makeCallerWorker = { work(screens) }
        for _ in 0..<(jobs - 1) { opened.wait() }
    }
    private let makeCallerWorker: () -> (UserBatch) -> EvalChunk

    /// The run: the elapsed nanoseconds (with one job the calling thread's CPU time, which runs
    /// the whole pipeline; with more, wall time) and the wall time.
    func run() -> (ns: Double, wall: Double) {
        let fd = open(output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let sink = OutputSink(fd: fd)
        var failed = 0
        var firstProblem = ""
        let consume: (EvalChunk) -> Bool = { chunk in
            sink.write(bytes: chunk.text[...])
            failed += chunk.failures.count + (chunk.notes.hasErrors ? 1 : 0)
            if firstProblem.isEmpty, let d = chunk.failures.first?.diagnostic ?? chunk.notes.order.first(where: { $0.severity == .error }) { firstProblem = "\(d)" }
            return true
        }
        let input = self.input
        let t0 = DispatchTime.now().uptimeNanoseconds, c0 = cpuNow()
        workers.run(makeWorker: makeCallerWorker, next: { input.nextBatch() }, consume: consume)
        sink.flush()
        let wall = Double(DispatchTime.now().uptimeNanoseconds - t0)
        let ns = jobs == 1 ? Double(cpuNow() - c0) : wall
        close(fd)
        precondition(failed == 0, "W1: host eval reported failures, the first: \(firstProblem)")
        return (ns, wall)
    }
}

/// Two `--jobs 1` runs of `host eval` over the same users at once, each on its own thread with
/// its own workspace, input and output (the caller's thread runs one, a thread started for the
/// pair the other; both made ready before the clock): no sharing, no queue between them. What
/// this machine gives two threads of this very pipeline at the moment, the most a 2-job run
/// can get from it (wall time until both are done).
private func pipelinePair(project: String, users: String, outputs: (String, String)) -> Double {
    let other = PreparedEvalSlot()
    let ready = DispatchSemaphore(value: 0), go = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
    let started = WorkerThread.start {
        other.run = PreparedEval(project: project, users: users, jobs: 1, output: outputs.1)
        ready.signal()
        go.wait()
        _ = other.run!.run()
        done.signal()
    }
    precondition(started, "population bench: no thread could be started for the pipeline pair")
    let mine = PreparedEval(project: project, users: users, jobs: 1, output: outputs.0)
    ready.wait()
    let t0 = DispatchTime.now().uptimeNanoseconds
    go.signal()
    _ = mine.run()
    done.wait()
    return Double(DispatchTime.now().uptimeNanoseconds - t0)
}

/// The rollout section of the targeting plugin's embedded source (`Plugins/targeting/plugin.lua`):
/// from its `stickiness_value` to the end of `evaluate_rollout`, the functions the plugin
/// registers as `rollout`, verbatim. Stops the bench when the plugin no longer has them so.
private func rolloutSection() -> String {
    let source = StandardPlugins.virtualFiles[StandardPlugins.root + "/targeting/plugin.lua"] ?? ""
    guard let start = source.range(of: "local function stickiness_value(v)"),
          let fn = source.range(of: "local function evaluate_rollout(user, args)", range: start.upperBound..<source.endIndex),
          let end = source.range(of: "\nend\n", range: fn.upperBound..<source.endIndex),
          source.range(of: "host.rule(\"rollout\", evaluate_rollout", range: end.upperBound..<source.endIndex) != nil else {
        preconditionFailure("W2: the targeting plugin's rollout functions were not found in its embedded source")
    }
    return String(source[start.lowerBound..<end.upperBound])
}

/// The floor: the same rules over the same users in one bare Lua state, made once (the users'
/// values loaded as Lua arrays), run as often as wanted.
private final class FloorRun {
    let state: LuaState

    /// Gates counted (8 for W1, 9 for W2).
    let gates: Int

    /// `rollout`: W2's floor, the ninth gate the targeting plugin's rollout (its stickiness and
    /// bucket functions as it has them) through the murmur3 module it ships, loaded from the
    /// same embedded source.
    init(_ users: [[(String, JSONValue)]], rollout: Bool = false) {
        state = try! LuaState(limits: LuaLimits(timeBudgetMilliseconds: 600_000, memoryMegabytes: 2048))
        gates = rollout ? 9 : 8
        let keys = ["tier", "country", "app_version", "age", "churn_score", "beta", "platform", "sessions"] + (rollout ? ["id"] : [])
        func lua(_ v: JSONValue?) -> String {
            switch v {
            case .string(let s)?: return "\"\(s)\""
            case .int(let i)?: return String(i)
            case .double(let d)?: return String(d)
            case .bool(let b)?: return b ? "true" : "false"
            default: return "nil"
            }
        }
        var data = "N = \(users.count)\nCOLS = {}\n"
        for k in keys {
            data += "COLS.\(k) = {" + users.map { u in lua(u.first { $0.0 == k }?.1) }.joined(separator: ",") + "}\n"
        }
        try! state.run(data, chunkName: "=w1data")
        var gates = w1Gates.enumerated().map { k, g in "    if \(g.1 ? "not " : "")R.\(g.0)(u, nil, nil) then SEEN[\(k + 1)] = SEEN[\(k + 1)] + 1 end" }
        var rolloutCode = ""
        if rollout {
            let murmur3 = StandardPlugins.virtualFiles[StandardPlugins.root + "/targeting/murmur3.lua"]!
            // The targeting plugin's rollout (its stickiness and bucket functions and
            // `evaluate_rollout`), taken from the plugin's own embedded source, so the floor
            // cannot drift from what `host eval` runs (`rolloutSection`).
            rolloutCode = """
                local murmur3 = (function()
                \(murmur3)
                end)()
                \(rolloutSection())
                local W2_ARGS = { percent = 10, group = "w2", stickiness = "id" }

                """
            gates.append("    if evaluate_rollout(u, W2_ARGS, nil) then SEEN[9] = SEEN[9] + 1 end")
        }
        try! state.run(w1Rules + rolloutCode + """
            function FLOOR()
              SEEN = {0, 0, 0, 0, 0, 0, 0, 0, 0}
              local \(keys.joined(separator: ", ")) =
                \(keys.map { "COLS." + $0 }.joined(separator: ", "))
              for i = 1, N do
                local u = { \(keys.map { "\($0) = \($0)[i]" }.joined(separator: ", ")) }
            \(gates.joined(separator: "\n"))
              end
            end
            """, chunkName: "=w1floor")
    }

    /// One run over every user: the thread's CPU time, the wall time, and per component how
    /// many users see it.
    func run() -> (ns: Double, wall: Double, seen: [String: Int]) {
        let t0 = DispatchTime.now().uptimeNanoseconds, c0 = cpuNow()
        try! state.run("FLOOR()", chunkName: "=w1run")
        let ns = Double(cpuNow() - c0), wall = Double(DispatchTime.now().uptimeNanoseconds - t0)
        var seen: [String: Int] = [:]
        _ = state.getGlobal("SEEN")
        for k in 1...gates { _ = state.getIndex(-1, k); seen["c\(k)"] = state.toInt(-1) ?? -1; state.pop() }
        state.pop()
        return (ns, wall, seen)
    }
}

/// Two floors at once: the caller runs one while a thread started beforehand (`WorkerThread`,
/// parked until then, as `host eval` starts its worker threads before the users come) runs the
/// other; the wall time until both are done.
final class FloorPair {
    private let a: FloorRun, b: FloorRun
    private let go = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
    private var stopping = false

    /// `a`: the floor run alone (its state reused; one more is made for the thread).
    fileprivate init(_ a: FloorRun, _ users: [[(String, JSONValue)]]) {
        self.a = a
        b = FloorRun(users)
        let started = WorkerThread.start { [self] in
            while true {
                go.wait()
                if stopping { break }
                _ = b.run()
                done.signal()
            }
            done.signal()
        }
        precondition(started, "population bench: no thread could be started for the floor pair")
    }

    func run() -> Double {
        let t0 = DispatchTime.now().uptimeNanoseconds
        go.signal()
        _ = a.run()
        done.wait()
        return Double(DispatchTime.now().uptimeNanoseconds - t0)
    }

    /// Ends the thread (once the pair is no longer run).
    func stop() {
        stopping = true
        go.signal()
        done.wait()
    }
}

/// W1 with every Lua rule called (`LOOM_EVAL_NO_MEMO=1`) against the floor alone, `rounds`
/// interleaved rounds, best of each (`--only nomemo`: the `population` bench's `nomemo_ratio`
/// without the rest of that bench, for working on it; the same users, project and floor).
func nomemoBench(users n: Int, rounds: Int, tmp: String) -> (hostNs: Double, floorNs: Double) {
    let dir = tmp + "/population"
    writeW1Project(at: dir, targeting: false)
    let users = w1Users(n)
    let file = tmp + "/w1.jsonl"
    writeJSONL(users, to: file)
    let floorRun = FloorRun(users)
    var host = Double.infinity, floor = Double.infinity, floorSeen: [String: Int] = [:]
    for _ in 0..<rounds {
        let f = floorRun.run()
        floor = min(floor, f.ns)
        floorSeen = f.seen
        host = min(host, hostEval(project: dir, users: file, jobs: 1, output: tmp + "/w1nm.out", memo: false).ns)
    }
    let hostSeen = seenCounts(tmp + "/w1nm.out")
    for k in 1...8 {
        precondition(hostSeen["c\(k)"] ?? 0 == floorSeen["c\(k)"], "W1: host eval and the floor disagree on c\(k)")
    }
    return (host / Double(n), floor / Double(n))
}

func populationBench(users n: Int, streamed: Int, w2Users w2n: Int, w2Streamed: Int, tmp: String) -> PopulationBenchResult {
    let dir = tmp + "/population", std = tmp + "/population-targeting"
    writeW1Project(at: dir, targeting: false)
    writeW1Project(at: std, targeting: true)
    let users = w1Users(n)
    let file = tmp + "/w1.jsonl"
    writeJSONL(users, to: file)
    var r = PopulationBenchResult(users: n)
    var host = Double.infinity, floor = Double.infinity, targeting = Double.infinity, two = Double.infinity, hostWall = Double.infinity
    var floorWall = Double.infinity, floorPair = Double.infinity, pipelinePairWall = Double.infinity
    let floorRun = FloorRun(users), pair = FloorPair(floorRun, users)
    var floorSeen: [String: Int] = [:]
    // Interleaved, best of 41: a noisy neighbour hurts every figure alike. (Five were too few
    // for the 2-job figure: a W1 run lasts 6–13 ms, and this machine's other tenants slow a
    // process's runs by up to 1.5× for a second or more at a time, long enough to spoil several
    // rounds in a row. Eleven were few too: the 2-job run needs both cores quiet at once; in
    // 150 paired rounds (four processes, 2026-11-23) its tenth percentile, about what a best of
    // eleven gets, was 3–6 % above its best, against 1.5–3 % for the 1-job run. Twenty-one were
    // few still: in 360 rounds (six processes of 60, 2026-11-24 02:10 UTC) the 2-job run's
    // median was 12 % above its best against 4 % for the 1-job run's, and one of the twelve
    // stretches of 21 rounds in a row fell inside a burst (scaling 1.553 where the eleven others
    // read 1.830–1.858); none of the twelve stretches of 30, nor the six of 41, did (1.822–1.866).
    // A round takes about 60 ms: 41 take 2.5 s.) Past 41, rounds go on while the machine
    // itself has not yet given two threads their due: until both controls have scaled at least
    // `quietScaling` in their best round, two bare Lua floors at once and two `--jobs 1`
    // pipelines at once (nothing shared between the two, no queue), at most 121 rounds in all.
    // (In one of twelve runs of 41 rounds, at 02:04 UTC, the floors scaled 1.269 and every
    // 2-job figure was spoilt alike: the pipeline pair 1.397. Later, 02:30 UTC, the floors
    // scaled 1.86–2.02 in ten runs while the pipeline pair read 1.37–1.95: a neighbour that
    // slows the pipeline's memory-heavier work more than the floor's.)
    let quietScaling = 1.85
    var rounds = 0
    while rounds < 41 || (rounds < 121 && min(r.floorScaling, r.pipelineScaling) < quietScaling) {
        rounds += 1
        let f = floorRun.run(); floor = min(floor, f.ns); floorWall = min(floorWall, f.wall); floorSeen = f.seen
        floorPair = min(floorPair, pair.run())
        let h = hostEval(project: dir, users: file, jobs: 1, output: tmp + "/w1.out"); host = min(host, h.ns); hostWall = min(hostWall, h.wall)
        let t = hostEval(project: std, users: file, jobs: 1, output: tmp + "/w1t.out"); targeting = min(targeting, t.ns)
        two = min(two, hostEval(project: dir, users: file, jobs: 2, output: tmp + "/w1j2.out").ns)
        pipelinePairWall = min(pipelinePairWall, pipelinePair(project: dir, users: file, outputs: (tmp + "/w1p1.out", tmp + "/w1p2.out")))
        // The controls' walls so far, which the loop's test reads.
        r.hostWallNs = hostWall / Double(n)
        r.floorAloneWallNs = floorWall / Double(n)
        r.floorPairWallNs = floorPair / Double(n)
        r.pipelinePairWallNs = pipelinePairWall / Double(n)
    }
    // Who sees what, from the last round's outputs (every round writes the same).
    let hostSeen = seenCounts(tmp + "/w1.out"), stdSeen = seenCounts(tmp + "/w1t.out")
    for k in 1...8 {
        precondition(hostSeen["c\(k)"] ?? 0 == floorSeen["c\(k)"], "W1: host eval and the floor disagree on c\(k): \(hostSeen["c\(k)"] ?? 0) vs \(floorSeen["c\(k)"] ?? -1)")
        precondition(stdSeen["c\(k)"] ?? 0 == floorSeen["c\(k)"], "W1: the targeting rules and the floor disagree on c\(k)")
    }
    pair.stop()
    let jobs1Output = try? Data(contentsOf: URL(fileURLWithPath: tmp + "/w1.out"))
    precondition(jobs1Output == (try? Data(contentsOf: URL(fileURLWithPath: tmp + "/w1j2.out"))), "W1: --jobs 2 output differs from --jobs 1")
    for f in ["/w1p1.out", "/w1p2.out"] {
        precondition(jobs1Output == (try? Data(contentsOf: URL(fileURLWithPath: tmp + f))), "W1: a run of the pipeline pair differs from --jobs 1")
    }
    r.hostNs = host / Double(n)
    r.floorNs = floor / Double(n)
    r.targetingNs = targeting / Double(n)
    r.jobs2Ns = two / Double(n)
    r.rounds = rounds
    // W1 with every Lua rule called for every user (`LOOM_EVAL_NO_MEMO=1`), against the same
    // floor, interleaved, best of 7 (a run lasts about 0.2 s).
    var nomemo = Double.infinity, nomemoFloor = Double.infinity
    for _ in 0..<7 {
        nomemoFloor = min(nomemoFloor, floorRun.run().ns)
        nomemo = min(nomemo, hostEval(project: dir, users: file, jobs: 1, output: tmp + "/w1nm.out", memo: false).ns)
    }
    precondition(jobs1Output == (try? Data(contentsOf: URL(fileURLWithPath: tmp + "/w1nm.out"))), "W1: the run without memos differs from the run with them")
    r.nomemoNs = nomemo / Double(n)
    r.nomemoFloorNs = nomemoFloor / Double(n)
    r.rssAfterW1MB = peakRSSMB()
    w2Bench(users: w2n, streamed: w2Streamed, w1Project: dir, tmp: tmp, into: &r)
    // Memory while streaming: many more users through the same pipeline, output discarded.
    if streamed > 0 {
        let big = tmp + "/w1-big.jsonl"
        writeJSONL((0..<streamed).lazy.map { users[$0 % n] }, to: big)
        let one = hostEval(project: dir, users: big, jobs: 1, output: "/dev/null")
        r.streamedUsers = streamed
        r.rssAfterStreamMB = peakRSSMB()
        // The same stream with two jobs: scaling once the workers have learnt the screen (W1's
        // users again and again), beside W1's own, where learning is a large part of the run.
        let two = hostEval(project: dir, users: big, jobs: 2, output: "/dev/null")
        r.streamedScaling = one.wall / two.wall
        try? FileManager.default.removeItem(atPath: big)
    }
    return r
}

/// W2 (issue 38): `w2n` users with ids of their own through W1's 8 gates and a rollout sticky on
/// `id`, by `host eval --select visible --jobs 1`, against the nine rules in one bare Lua state
/// (interleaved, best of 5: a run lasts a second or more); then `--jobs N` against `--jobs 1` on
/// the same users through W1's screen for N = 2, 4, 8, 16 up to the cores; then W2's users
/// streamed (`streamed` of them, each with an id of their own) for the peak RSS.
private func w2Bench(users w2n: Int, streamed: Int, w1Project: String, tmp: String, into r: inout PopulationBenchResult) {
    let dir = tmp + "/population-w2"
    writeW1Project(at: dir, targeting: false, rollout: true)
    let users = w2Users(w2n)
    let file = tmp + "/w2.jsonl"
    writeJSONL(users, to: file)
    let floorRun = FloorRun(users, rollout: true)
    var host = Double.infinity, floor = Double.infinity
    var floorSeen: [String: Int] = [:]
    for _ in 0..<5 {
        let f = floorRun.run()
        floor = min(floor, f.ns)
        floorSeen = f.seen
        host = min(host, hostEval(project: dir, users: file, jobs: 1, output: tmp + "/w2.out", screen: "w2").ns)
    }
    let seen = seenCounts(tmp + "/w2.out")
    for k in 1...9 {
        precondition(seen["c\(k)"] ?? 0 == floorSeen["c\(k)"], "W2: host eval and the floor disagree on c\(k): \(seen["c\(k)"] ?? 0) vs \(floorSeen["c\(k)"] ?? -1)")
    }
    _ = hostEval(project: dir, users: file, jobs: 2, output: tmp + "/w2j2.out", screen: "w2")
    precondition((try? Data(contentsOf: URL(fileURLWithPath: tmp + "/w2.out"))) == (try? Data(contentsOf: URL(fileURLWithPath: tmp + "/w2j2.out"))),
                 "W2: --jobs 2 output differs from --jobs 1")
    r.w2Users = w2n
    r.w2HostNs = host / Double(w2n)
    r.w2FloorNs = floor / Double(w2n)
    r.w2Rounds = 5

    // Scaling: W1's screen over W2's users (W1's, plus an id it does not read), --jobs N
    // against --jobs 1, interleaved, best of 5 each.
    r.cores = ProcessInfo.processInfo.activeProcessorCount
    let counts = [2, 4, 8, 16].filter { $0 <= r.cores }
    var one = Double.infinity
    var many = Array(repeating: Double.infinity, count: counts.count)
    for _ in 0..<5 {
        one = min(one, hostEval(project: w1Project, users: file, jobs: 1, output: tmp + "/w2s1.out").wall)
        for (k, j) in counts.enumerated() {
            many[k] = min(many[k], hostEval(project: w1Project, users: file, jobs: j, output: tmp + "/w2s\(j).out").wall)
        }
    }
    r.scalingByJobs = counts.enumerated().map { ($1, one / many[$0]) }
    (r.readerBlockNs, r.readerLinesNs) = readerCost(file, users: w2n)

    if streamed > 0 {
        // The stream's first tenth on its own, then the whole stream: the peak RSS of each run
        // alone (the peak reset before each: `resetPeakRSS`), so the ratio tells whether a
        // worker's memory grows with the users it has seen (flat: ≈ 1.0).
        let tenth = max(1, streamed / 10)
        let big = tmp + "/w2-big.jsonl", small = tmp + "/w2-tenth.jsonl"
        let stream = { (n: Int) in
            (0..<n).lazy.map { i -> [(String, JSONValue)] in
                var u = users[i % w2n]
                u[1] = ("id", .string("user-\(i)"))
                return u
            }
        }
        writeJSONL(stream(tenth), to: small)
        writeJSONL(stream(streamed), to: big)
        // The heap's free memory given back first (`trimFreeHeap`), so each run's own memory
        // shows above what the process holds before it (`rss…Before`).
        trimFreeHeap()
        let reset = resetPeakRSS()
        r.rssBeforeStreamMB = peakRSSMB()
        _ = hostEval(project: dir, users: small, jobs: 1, output: "/dev/null", screen: "w2")
        r.rssTenthStreamMB = peakRSSMB()
        trimFreeHeap()
        _ = resetPeakRSS()
        r.rssBeforeWholeStreamMB = peakRSSMB()
        _ = hostEval(project: dir, users: big, jobs: 1, output: "/dev/null", screen: "w2")
        r.w2StreamedUsers = streamed
        r.w2TenthUsers = tenth
        r.rssAfterW2StreamMB = peakRSSMB()
        r.rssPeakReset = reset
        try? FileManager.default.removeItem(atPath: big)
        try? FileManager.default.removeItem(atPath: small)
    }
}
