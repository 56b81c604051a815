import ArgumentParser
import Foundation
import LoomCore
import LoomTesting

/// `host test --coverage`, `--coverage-json`, `--lcov`, `--min-coverage`: the flags' checks,
/// the table printed after the results, the files written, and the minimum.
struct CoverageReport {
    var table = false
    var jsonFile: String?
    var lcovFile: String?
    /// Percent of rule outcomes (0–100) below which the run fails.
    var minimum: Double?

    var wanted: Bool { table || jsonFile != nil || minimum != nil }

    /// `--min-coverage`: a number from 0 to 100.
    static func parseMinimum(_ s: String) throws -> Double {
        let t = s.trimmingCharacters(in: .whitespaces)
        guard let v = Double(t), v.isFinite, (0...100).contains(v) else {
            throw ValidationError("--min-coverage takes a percentage from 0 to 100 (of rule outcomes seen), found '\(TextEscape.escaped(s))'")
        }
        return v
    }

    /// A file the run will write: its folder must exist and be writable, and the file must not
    /// be a folder; then the safe writer's own check (no link inside the project on the way, the
    /// file not a link, FIFO or device). Checked before the scenarios run, so a typo does not
    /// cost a whole run.
    static func checkWritable(_ path: String, flag: String, writer: SafeWriter) throws {
        let fm = FileManager.default
        var isDir: ObjCBool = false
        if fm.fileExists(atPath: path, isDirectory: &isDir) {
            if isDir.boolValue { throw ValidationError("\(flag) \(TextEscape.escaped(path)): is a folder, not a file") }
            if !fm.isWritableFile(atPath: path) { throw ValidationError("\(flag) \(TextEscape.escaped(path)): the file is not writable") }
        } else {
            let parent = (path as NSString).deletingLastPathComponent
            let dir = parent.isEmpty ? "." : parent
            guard fm.fileExists(atPath: dir, isDirectory: &isDir), isDir.boolValue else {
                throw ValidationError("\(flag) \(TextEscape.escaped(path)): the folder \(TextEscape.escaped(dir)) does not exist")
            }
            if !fm.isWritableFile(atPath: dir) {
                throw ValidationError("\(flag) \(TextEscape.escaped(path)): the folder \(TextEscape.escaped(dir)) is not writable")
            }
        }
        do { try writer.check(path, createFolders: false) } catch {
            throw ValidationError("\(flag) \(TextEscape.escaped(path)): \(TextEscape.escaped(error.message))")
        }
    }

    func validate(_ writer: SafeWriter) throws {
        if let jsonFile { try Self.checkWritable(jsonFile, flag: "--coverage-json", writer: writer) }
        if let lcovFile { try Self.checkWritable(lcovFile, flag: "--lcov", writer: writer) }
    }

    /// The table `--coverage` prints after the results (before the summary line).
    func text(_ c: ScenarioCoverage, style: Style) -> String {
        guard table else { return "" }
        let e = TextEscape.escaped
        let pct = ScenarioCoverage.percentText
        func ratio(_ a: Int, _ b: Int) -> String { "\(a)/\(b) (\(pct(b == 0 ? 100 : Double(a) * 100 / Double(b)))%)" }
        var out = "\ncoverage\n"
        let o = c.ruleOutcomes, n = c.nodesShown, s = c.screensOpened, g = c.edgesTaken, p = c.profilesUsed
        out += "  rule outcomes \(ratio(o.covered, o.total)), components shown \(ratio(n.shown, n.total)), "
        out += "screens opened \(ratio(s.opened, s.total)), edges taken \(ratio(g.taken, g.total)), profiles used \(ratio(p.used, p.total))\n"
        func section(_ title: String, _ header: [String], _ rows: [[String]], mark: [Bool]) {
            out += "\n" + style.dim("  " + title) + "\n"
            let all = [header] + rows
            var widths = Array(repeating: 0, count: header.count)
            for r in all { for (i, x) in r.enumerated() { widths[i] = max(widths[i], x.count) } }
            for (k, r) in all.enumerated() {
                var line = "   "
                for (i, x) in r.enumerated() {
                    let numeric = i > 0 && !x.isEmpty && x.allSatisfy(\.isNumber)
                    let pad = String(repeating: " ", count: widths[i] - x.count)
                    line += " " + (numeric ? pad + x : (i == r.count - 1 ? x : x + pad))
                }
                let text = line.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) + "\n"
                out += k == 0 ? style.dim(text) : (mark[k - 1] ? style.warning(text) : text)
            }
        }
        let rules = c.sortedRules
        section("rules (true / false / errored / skipped per evaluation)", ["location", "true", "false", "error", "skip", "rule"],
                rules.map { [e($0.location.description), "\($0.trueCount)", "\($0.falseCount)", "\($0.errored)", "\($0.skipped)", e($0.text)] },
                mark: rules.map { $0.trueCount == 0 || $0.falseCount == 0 })
        let names = c.ruleNames
        section("rules by name", ["name", "sites", "true", "false", "error", "skip"],
                names.map { [e($0.name), "\($0.sites)", "\($0.trueCount)", "\($0.falseCount)", "\($0.errored)", "\($0.skipped)"] },
                mark: names.map { $0.trueCount == 0 || $0.falseCount == 0 })
        let nodes = c.sortedNodes
        section("components and items (shown / hidden per resolution)", ["screen", "shown", "hidden", "path"],
                nodes.map { n in
                    let label = (n.isItem && n.type != "item" ? "item " : "") + n.type + (n.id.map { " #" + $0 } ?? "") + (n.title.map { " \"\($0)\"" } ?? "")
                    return [e(n.screen), "\(n.shown)", "\(n.hidden)", e(n.path) + "  " + e(label)]
                },
                mark: nodes.map { $0.shown == 0 })
        let screens = c.sortedScreens
        section("screens", ["screen", "opened", "file"], screens.map { [e($0.id), "\($0.opened)", e($0.file)] },
                mark: screens.map { $0.opened == 0 })
        let edges = c.sortedEdges
        section("edges (steps offered by visible actions / taken by scenarios)", ["screen", "offered", "taken", "step"],
                edges.map { x in
                    let to = x.targets.keys.sorted().map { "\(e($0)) ×\(x.targets[$0]!)" }.joined(separator: ", ")
                    return [e(x.screen), "\(x.offered)", "\(x.taken)", e(x.step) + (to.isEmpty ? "" : " → " + to)]
                },
                mark: edges.map { $0.taken == 0 })
        let profiles = c.sortedProfiles
        section("profiles", ["profile", "sessions", "file"], profiles.map { [e($0.name), "\($0.sessions)", e($0.file)] },
                mark: profiles.map { $0.sessions == 0 })
        if c.anonymousSessions > 0 { out += "    (no profile): \(c.anonymousSessions) session\(c.anonymousSessions == 1 ? "" : "s")\n" }
        return out
    }

    /// The closing line when rule outcome coverage is below `--min-coverage`, else nil.
    func shortfall(_ c: ScenarioCoverage) -> String? {
        guard let minimum else { return nil }
        let p = c.ruleOutcomePercent
        guard p < minimum else { return nil }
        let o = c.ruleOutcomes
        let m = minimum == minimum.rounded() ? String(Int(minimum)) : String(minimum)
        return "coverage: \(ScenarioCoverage.percentText(p))% of rule outcomes seen (\(o.covered) of \(o.total)) is below --min-coverage \(m)%"
    }

    /// Writes `--coverage-json` and `--lcov`.
    func write(_ c: ScenarioCoverage, _ writer: SafeWriter) throws {
        if let jsonFile { try ScenarioOutput.write(c.json.serialized(pretty: true) + "\n", to: jsonFile, writer) }
        if let lcovFile { try ScenarioOutput.write(c.lcov, to: lcovFile, writer) }
    }
}
