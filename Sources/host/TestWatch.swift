import ArgumentParser
import Foundation
import LoomCore
import LoomTesting

/// `host test --watch`: runs the scenarios, then, on every save, reruns those a change can
/// affect — a scenario file itself, or the scenario files that opened a changed screen; a change
/// to anything else (plugins, users, flows, loom.json, styles) reruns them all. Without PATHs the
/// project's journeys (journeys.json) run after every rerun, and alone when only journeys.json or
/// screens no scenario opened changed.
extension Test {
    func watchLoop() throws {
        StopOnInterrupt.install()
        var o = options
        // Which screens each file opened comes from the coverage collector.
        o.coverage = true
        let root = engine.project ?? Project.findRoot(from: ".") ?? "."
        let watcher = FileWatcher(roots: [root] + engine.plugins + paths, debounce: 0.1)
        let openedBox = OpenedScreens()                 // scenario file → screen files it opened
        var selection: [String]? = nil                  // nil: everything
        // Without PATHs the project's journeys run after the scenarios, as `host test` runs
        // them, and again after any change that reruns scenarios, a screen's or journeys.json's.
        let journeysFile = Self.normal(Project.join(root, "journeys.json"))
        var runScenarios = true
        while true {
            o.paths = selection ?? paths
            let style = Console.outStyle
            if runScenarios {
                let report = ScenarioRunner.run(o) { outcome in
                    Console.out(ScenarioOutput.render(outcome.results, style: style))
                    let screens = Set((outcome.coverage?.screens.values ?? [:].values).filter { $0.opened > 0 }.map { Self.normal($0.file) })
                    openedBox.set(Self.normal(outcome.file.path), screens)
                }
                for e in report.errors { Console.out(style.error("✗") + " " + TextEscape.escaped(e.message) + "\n") }
                Console.out(report.summary + "\n")
            }
            // A project that fails to load has said so already (its errors are the scenarios').
            if paths.isEmpty { _ = try? runJourneys() }
            let opened = openedBox.all
            FileHandle.standardError.write(Data("watching \(([root] + engine.plugins + paths).joined(separator: ", ")) (\(watcher.mechanism)); Ctrl-C stops\n".utf8))
            while true {
                let changed = watcher.waitForChange()
                let normal = changed.map(Self.normal)
                if paths.isEmpty, !normal.isEmpty, normal.allSatisfy({ $0 == journeysFile || ($0.hasSuffix(".json") && $0.contains("/screens/")) }),
                   Self.affected(normal.filter { $0 != journeysFile }, opened: opened) == nil {
                    runScenarios = false
                    Console.out("--- changed: \(changed.map { TextEscape.escaped($0) }.joined(separator: ", ")); rerunning the journeys\n")
                    break
                }
                if let picked = Self.affected(normal, opened: opened) {
                    runScenarios = true
                    selection = picked.isEmpty ? nil : picked.sorted()
                    let what = selection.map { "rerunning \($0.count) scenario file\($0.count == 1 ? "" : "s")" } ?? "rerunning every scenario"
                    Console.out("--- changed: \(changed.map { TextEscape.escaped($0) }.joined(separator: ", ")); \(what)\n")
                    break
                }
            }
        }
    }

    /// The scenario files to rerun: nil when nothing relevant changed, empty for "all".
    static func affected(_ changed: [String], opened: [String: Set<String>]) -> Set<String>? {
        var picked: Set<String> = []
        var all = false
        for c in changed {
            if c.hasSuffix(".snap") || c.hasSuffix(".snap.new") || c.contains("/__snapshots__/") { continue }
            if opened[c] != nil || (c.hasSuffix(".lua") && c.contains("/scenarios/")) {
                picked.insert(c)
                continue
            }
            let users = opened.filter { $0.value.contains(c) }.map(\.key)
            if !users.isEmpty {
                picked.formUnion(users)
            } else if c.hasSuffix(".json") && c.contains("/screens/") {
                continue   // a screen no scenario opens
            } else {
                all = true
            }
        }
        if all { return [] }
        return picked.isEmpty ? nil : picked
    }

    static func normal(_ p: String) -> String { URL(fileURLWithPath: p).standardizedFileURL.path }
}

/// Collected from the runner's worker threads.
final class OpenedScreens {
    private let lock = NSLock()
    private var map: [String: Set<String>] = [:]
    func set(_ file: String, _ screens: Set<String>) { lock.withLock { map[file] = screens } }
    var all: [String: Set<String>] { lock.withLock { map } }
}
