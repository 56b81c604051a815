import ArgumentParser
import Dispatch
import Foundation
import LoomCore
import LoomDiff
import LoomPlugins

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Resolve a screen and print it, then print what changed each time a file it depends on is saved (Ctrl-C stops).",
        discussion: """
            Watches the project folder (screens, plugins, styles, users.json, flows.json, loom.json, …) and every
            --plugins folder: inotify on Linux, polling elsewhere (or with --poll). Each save reloads the plugins and
            resolves again; the changes against the previous good result are printed as `host diff` prints them. A
            save that breaks something prints its located errors and keeps the last good result until the next good
            save. Output is line by line, so it can be piped.
            """)

    @Argument(help: "The screen file or screen id.")
    var screen: String

    @OptionGroup var user: UserOptions
    @OptionGroup var engine: EngineOptions
    @OptionGroup var deviceOptions: DeviceOptions

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Wait this long after the last change before resolving again, in milliseconds (10…10000).", valueName: "ms"))
    var debounce: Int = 100

    @Flag(name: .long, help: "Poll for changes (sizes and modification times, every 250 ms) instead of using inotify.")
    var poll = false

    func validate() throws {
        guard (10...10_000).contains(debounce) else { throw ValidationError("--debounce is 10…10000 milliseconds, found \(debounce)") }
    }

    func run() throws {
        StopOnInterrupt.install()
        let root = Workspace.projectRoot(explicit: engine.project, screen: screen)
        var roots = [root] + engine.plugins
        if SafeFile.exists(screen), !SafeFile.isInside(screen, root: root) { roots.append(screen) }
        let watcher = FileWatcher(roots: roots, debounce: Double(debounce) / 1000, forcePolling: poll)
        var last: JSONValue?
        var changedFiles: [String] = []
        while true {
            if last != nil || !changedFiles.isEmpty {
                Console.out("--- changed: \(changedFiles.map { TextEscape.escaped($0) }.joined(separator: ", "))\n")
            }
            if let tree = resolveOnce(previous: last) { last = tree }
            FileHandle.standardError.write(Data("watching \(roots.joined(separator: ", ")) (\(watcher.mechanism)); Ctrl-C stops\n".utf8))
            changedFiles = watcher.waitForChange()
        }
    }

    /// Resolves with freshly loaded plugins; prints the whole result the first time, then the
    /// changes. Returns the visible tree, or nil when the inputs have errors (already reported).
    private func resolveOnce(previous: JSONValue?) -> JSONValue? {
        let report: ScreenReport
        do {
            let ws = try Workspace(options: engine.workspaceOptions(device: deviceOptions.chosen), anchor: screen)
            report = try ScreenReport.resolve(screen, in: ws, user: user, explain: false, graph: true)
        } catch {
            // ScreenReport reported the located errors; a Lua runtime that cannot start is said here.
            if !(error is ExitCode) { Console.error("cannot start the Lua runtime: \(error)") }
            if previous != nil { Console.out("errors: keeping the last good result\n") }
            return nil
        }
        let tree: JSONValue = .object(["tree": report.resolution.tree.map { TreeOutput.json($0, explain: false) } ?? .null,
                                       "graph": report.graph?.json ?? .null])
        if report.diagnostics.hasErrors {
            Console.report(report.diagnostics)
            if previous != nil { Console.out("errors: keeping the last good result\n") }
            return nil
        }
        Console.report(report.diagnostics)
        guard let previous else {
            Console.out(report.rendered(.text))
            return tree
        }
        let changes = TreeDiffer(old: previous["tree"], new: tree["tree"]).changes
        let graph = GraphDiff(old: previous["graph"], new: tree["graph"])
        if changes.isEmpty && !graph.changed { Console.out("no changes\n") }
        for c in changes { Console.out(c.line + "\n") }
        for l in graph.lines { Console.out(l + "\n") }
        return tree
    }
}
