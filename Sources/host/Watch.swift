import ArgumentParser
import Dispatch
import Foundation
import LoomCommands
import LoomCore
import LoomDiff
import LoomWorkspace

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Resolve a screen and print it, then print what changed each time a file it depends on is saved (Ctrl-C stops).",
        discussion: """
            Watches the project's inputs (loom.json, rules.json, users.json, flows.json, the screens, styles and plugin
            folders) and every --plugins folder: inotify on Linux, polling elsewhere (or with --poll). Other files in
            the project folder are not inputs: a log the output is redirected to (`host watch … > watch.log` inside
            the project) changes nothing. Each save reloads the plugins and resolves again; the changes against the
            previous good result are printed as `host diff` prints them, each changed field with its old and new
            value below it (`  props.text: "Hi" → "Hey there"`). A save that breaks something prints its located
            errors and keeps the last good result until the next good save. Output is line by line, so it can be piped.
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
        // The screen given as a file, wherever it is, and the --plugins folders are inputs too.
        let extraFiles = SafeFile.exists(screen) ? [screen] : []
        while true {
            if last != nil || !changedFiles.isEmpty {
                Console.out("--- changed: \(changedFiles.map { TextEscape.escaped($0) }.joined(separator: ", "))\n")
            }
            let (tree, project) = resolveOnce(previous: last)
            if let tree { last = tree }
            // The inputs as the project now names them (an edit of loom.json may move a folder);
            // when the project cannot be opened, the default layout's (loom.json among them).
            let inputs = ProjectInputs(project: project ?? Project(root: root, fileLimits: engine.fileLimits), files: extraFiles, folders: engine.plugins)
            watcher.isInput = inputs.contains
            FileHandle.standardError.write(Data("watching \(roots.map(TextEscape.escaped).joined(separator: ", ")) (\(watcher.mechanism)); Ctrl-C stops\n".utf8))
            changedFiles = watcher.waitForChange()
        }
    }

    /// Resolves with freshly loaded plugins; prints the whole result the first time, then the
    /// changes. Returns the visible tree, or nil when the inputs have errors (already reported),
    /// and the project opened (nil when it could not be).
    private func resolveOnce(previous: JSONValue?) -> (JSONValue?, Project?) {
        let report: ScreenResult
        var project: Project?
        do {
            let ws = try Workspace(options: engine.workspaceOptions(device: deviceOptions.chosen), anchor: screen)
            project = ws.project
            let request = ScreenRequest(screen: screen, user: try user.selection(), device: deviceOptions.chosen, compute: [.tree, .graph])
            report = ScreenPipeline.resolve(request, in: ws)
        } catch {
            Console.error("cannot start the Lua runtime: \(error)")
            if previous != nil { Console.out("errors: keeping the last good result\n") }
            return (nil, project)
        }
        // The screen, the user or the project could not be used: its located errors.
        if report.failure != nil {
            Console.report(report.diagnostics)
            if previous != nil { Console.out("errors: keeping the last good result\n") }
            return (nil, project)
        }
        return (printed(report, previous: previous), project)
    }

    private func printed(_ report: ScreenResult, previous: JSONValue?) -> JSONValue? {
        let tree: JSONValue = .object(["tree": report.resolution?.tree.map { TreeOutput.json($0, explain: false) } ?? .null,
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
        for c in changes {
            Console.out(c.line + "\n")
            // What each field was and is now (escaped by ChangeValues).
            for l in ChangeValues.lines(for: c, old: previous["tree"], new: tree["tree"]) { Console.out("  " + l + "\n") }
        }
        for l in graph.lines { Console.out(l + "\n") }
        return tree
    }
}
