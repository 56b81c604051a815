// The `solver` bench: a generated 1,000-view layout (~4,000 constraints) solved by LoomSolver
// and, in the same run, by kiwi's own C++ (the headers of kiwisolver's source distribution,
// compiled by scripts/kiwi-anchor: the anchor, `kiwi_cpp_ratio`) and by kiwisolver (C++ through
// Python: scripts/solver-compare --bench). All three replay the same operations, the
// constraints built before their clocks start.
import Foundation
import LoomCore
import LoomSolver

struct SolverBenchFigures {
    var views = 0, variables = 0, constraints = 0
    var swiftMs = 0.0
    var kiwiMs: Double?
    var kiwiVersion: String?
    /// The largest difference between the two solvers' values.
    var maxDifference: Double?
    var skipped: String?
    /// kiwi's C++ (scripts/kiwi-anchor) on the same system: best time, version, the largest
    /// difference from LoomSolver's values, or why it was skipped.
    var kiwiCppMs: Double?
    var kiwiCppVersion: String?
    var kiwiCppMaxDifference: Double?
    var kiwiCppSkipped: String?
}

/// One `add` of the bench system: `Σ terms + constant rel 0`.
struct BenchOp {
    var terms: [(Int, Double)]
    var constant: Double
    var relation: Relation
    var strength: Double
}

/// Views as (x, y, w, h) variables: a root screen, `rows` rows stacked vertically with 8-point
/// spacing, each with views laid left to right with 4-point spacing — positions, heights and
/// preferred widths, a minimum width on every other view, the last view inside its row.
func solverBenchSystem(views: Int) -> (variables: Int, ops: [BenchOp]) {
    var ops: [BenchOp] = []
    let (x, y, w, h) = ({ (v: Int) in 4 * v }, { (v: Int) in 4 * v + 1 }, { (v: Int) in 4 * v + 2 }, { (v: Int) in 4 * v + 3 })
    func add(_ terms: [(Int, Double)], _ c: Double, _ r: Relation = .equal, _ s: Double = Strength.required) {
        ops.append(BenchOp(terms: terms, constant: c, relation: r, strength: s))
    }
    add([(x(0), 1)], 0); add([(y(0), 1)], 0); add([(w(0), 1)], -375); add([(h(0), 1)], 0, .greaterOrEqual)
    let rows = max(1, (views - 1) / 20)
    let perRow = (views - 1 - rows) / rows
    var next = 1
    var prevRow = 0
    for r in 0..<rows {
        let row = next
        next += 1
        add([(x(row), 1), (x(0), -1)], 0)
        add([(w(row), 1), (w(0), -1)], 0)
        if r == 0 { add([(y(row), 1), (y(0), -1)], -8) } else { add([(y(row), 1), (y(prevRow), -1), (h(prevRow), -1)], -8) }
        add([(h(row), 1)], -Double(36 + r % 3 * 4), .equal, Strength.strong)
        var prev = -1
        let count = r == rows - 1 ? views - next : perRow
        for k in 0..<count {
            let v = next
            next += 1
            if prev < 0 { add([(x(v), 1), (x(row), -1)], -4) } else { add([(x(v), 1), (x(prev), -1), (w(prev), -1)], -4) }
            add([(y(v), 1), (y(row), -1)], -2)
            add([(h(v), 1), (h(row), -1)], 4)
            add([(w(v), 1)], -Double(12 + (k * 7) % 9), .equal, Strength.medium)
            if k % 2 == 0 { add([(w(v), 1)], -8, .greaterOrEqual) }
            prev = v
        }
        if prev >= 0 { add([(x(prev), 1), (w(prev), 1), (x(row), -1), (w(row), -1)], 4, .lessOrEqual) }
        add([(h(0), 1), (y(row), -1), (h(row), -1)], 0, .greaterOrEqual)
        prevRow = row
    }
    return (4 * next, ops)
}

/// The system in scripts/solver-compare's format: every variable registered, then the adds.
func solverBenchJSON(variables: Int, ops: [BenchOp], repeat n: Int) -> String {
    var parts: [String] = []
    for i in 0..<variables { parts.append(#"{"op":"edit","var":\#(i),"strength":1.0},{"op":"unedit","var":\#(i)}"#) }
    for op in ops {
        let terms = op.terms.map { "[\($0.0),\($0.1)]" }.joined(separator: ",")
        parts.append(#"{"op":"add","terms":[\#(terms)],"constant":\#(op.constant),"rel":"\#(op.relation.rawValue)","strength":\#(op.strength)}"#)
    }
    return #"{"variables":\#(variables),"repeat":\#(n),"ops":[\#(parts.joined(separator: ","))]}"#
}

/// The system for scripts/kiwi-anchor (kiwi's C++ reads it without a JSON library): tokens
/// separated by white space, numbers as Swift writes a Double (the shortest text that reads back
/// as the same value). The format is described in scripts/kiwi-anchor.cpp.
func solverBenchPlain(variables: Int, ops: [BenchOp], repeat n: Int) -> String {
    var lines = ["loom-solver-system 1", "variables \(variables) repeat \(n) ops \(2 * variables + ops.count)"]
    lines.reserveCapacity(2 * variables + ops.count + 2)
    for i in 0..<variables {
        lines.append("edit \(i) \(Strength.weak)")
        lines.append("unedit \(i)")
    }
    for op in ops {
        var line = "add \(op.relation.rawValue) \(op.strength) \(op.constant) \(op.terms.count)"
        for (v, c) in op.terms { line += " \(v) \(c)" }
        lines.append(line)
    }
    return lines.joined(separator: "\n") + "\n"
}

/// Runs kiwi's C++ anchor (`LOOM_KIWI_CPP`, the binary scripts/kiwi-anchor builds) on a system
/// file: its best time, version and values, or why not.
func kiwiCppRun(_ file: String) -> Result<(ms: Double, version: String, values: [Double]), Diagnostic> {
    guard let exe = ProcessInfo.processInfo.environment["LOOM_KIWI_CPP"], !exe.isEmpty else {
        return .failure(.error("kiwi C++ anchor skipped: LOOM_KIWI_CPP is not set (scripts/bench sets it when scripts/kiwi-anchor could build it)"))
    }
    // Through the one runner (Subprocess): a stuck anchor is killed after 10 minutes.
    switch Subprocess.run(exe, arguments: [file], limits: Subprocess.Limits(timeout: 600, maxOutputBytes: 64 << 20, maxErrorBytes: 1 << 20),
                          missing: "LOOM_KIWI_CPP (\(exe)) is not an executable file", label: "kiwi-anchor") {
    case .success(let out):
        guard let obj = try? JSONSerialization.jsonObject(with: Data(out.stdout)) as? [String: Any],
              let ms = obj["ms"] as? Double, let values = obj["values"] as? [Double] else {
            return .failure(.error("kiwi C++ anchor skipped: \(exe) gave no timing"))
        }
        return .success((ms, obj["kiwi"] as? String ?? "?", values))
    case .failure(let d):
        return .failure(.error("kiwi C++ anchor skipped: \(d.message)"))
    }
}

func solverBench(views: Int, repetitions: Int, rounds: Int, tmp: String) -> SolverBenchFigures {
    let (count, ops) = solverBenchSystem(views: views)
    var f = SolverBenchFigures(views: views, variables: count, constraints: ops.count)
    var values: [Double] = []
    var best = Double.infinity
    let plain = tmp + "/solver-bench.system"
    try! solverBenchPlain(variables: count, ops: ops, repeat: repetitions).write(toFile: plain, atomically: true, encoding: .utf8)
    // Rounds alternate LoomSolver's repetitions with the anchor's, so both see the same load
    // (the machine is shared); each figure is the best time over all rounds.
    for _ in 0..<max(1, rounds) {
        for _ in 0..<repetitions {
            var s = Solver()
            let vars = (0..<count).map { _ in s.makeVariable() }
            let constraints = ops.map { op in
                Constraint(LinearExpression(op.terms.map { (vars[$0.0], $0.1) }, constant: op.constant), op.relation, strength: op.strength)
            }
            let t1 = DispatchTime.now().uptimeNanoseconds  // building the constraints is not the solver's work
            for v in vars {
                try! s.addEditVariable(v, strength: Strength.weak)
                try! s.removeEditVariable(v)
            }
            for c in constraints { try! s.add(c) }
            s.updateVariables()
            best = min(best, Double(DispatchTime.now().uptimeNanoseconds - t1) / 1e6)
            values = vars.map { s[$0] }
        }
        if f.kiwiCppSkipped == nil {
            switch kiwiCppRun(plain) {
            case .success(let k):
                f.kiwiCppMs = min(f.kiwiCppMs ?? .infinity, k.ms)
                f.kiwiCppVersion = k.version
                f.kiwiCppMaxDifference = k.values.count == values.count ? zip(values, k.values).map { abs($0 - $1) }.max() ?? 0 : .infinity
            case .failure(let d):
                f.kiwiCppSkipped = d.message
                f.kiwiCppMs = nil
            }
        }
    }
    f.swiftMs = best
    guard let script = ProcessInfo.processInfo.environment["LOOM_SOLVER_COMPARE"] else {
        f.skipped = "kiwisolver comparison skipped: LOOM_SOLVER_COMPARE is not set (scripts/bench sets it when kiwisolver is available)"
        return f
    }
    let file = tmp + "/solver-bench.json"
    try! solverBenchJSON(variables: count, ops: ops, repeat: repetitions).write(toFile: file, atomically: true, encoding: .utf8)
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
          let ms = obj["ms"] as? Double, let kiwiValues = obj["values"] as? [Double] else {
        f.skipped = "kiwisolver comparison skipped: \(script) --bench gave no timing (is kiwisolver installed?)"
        return f
    }
    f.kiwiMs = ms
    f.kiwiVersion = obj["kiwisolver"] as? String
    f.maxDifference = zip(values, kiwiValues).map { abs($0 - $1) }.max() ?? 0
    return f
}
