import ArgumentParser
import Foundation
import LoomCore
import LoomPlugins
import LuaRuntime

/// Options every command that loads plugins shares.
struct EngineOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The project folder (default: the folder holding loom.json above the screen, else the current folder).", valueName: "dir"))
    var project: String?

    @Option(name: .customLong("plugins"), help: ArgumentHelp("A plugin folder, or a folder of plugin folders, loaded after the project's (repeatable).", valueName: "dir"))
    var plugins: [String] = []

    @Option(name: .customLong("lua-time-limit"), help: ArgumentHelp("Time budget of every call into Lua, in milliseconds.", valueName: "ms"))
    var luaTimeLimit: Int = 100

    @Option(name: .customLong("lua-memory-limit"), help: ArgumentHelp("Memory cap on what plugin code allocates in each Lua state, in MiB (the host's own tables are not counted).", valueName: "mb"))
    var luaMemoryLimit: Int = 64

    @Flag(name: .long, help: "Print what plugins log (print, host.log) to stderr.")
    var verbose = false

    func validate() throws {
        guard luaTimeLimit > 0 else { throw ValidationError("--lua-time-limit must be a positive number of milliseconds") }
        guard luaMemoryLimit > 0 else { throw ValidationError("--lua-memory-limit must be a positive number of MiB") }
    }

    var workspaceOptions: Workspace.Options {
        var o = Workspace.Options()
        o.project = project
        o.extraPluginDirs = plugins
        o.limits = LuaLimits(timeBudgetMilliseconds: luaTimeLimit, memoryMegabytes: luaMemoryLimit)
        o.verbose = verbose
        return o
    }

    func workspace(anchor: String?) throws -> Workspace {
        do {
            return try Workspace(options: workspaceOptions, anchor: anchor)
        } catch {
            Console.error("cannot start the Lua runtime: \(error)")
            throw ExitCode(1)
        }
    }
}

/// Unwraps a result, or reports everything collected so far with its failure and exits 1.
func orExit<T>(_ r: Result<T, Diagnostic>, _ diagnostics: Diagnostics) throws -> T {
    switch r {
    case .success(let v): return v
    case .failure(let e):
        var d = diagnostics
        d.append(e)
        Console.report(d)
        throw ExitCode(1)
    }
}

struct UserOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("A profile from the project's users.json.", valueName: "name"))
    var user: String?

    @Option(name: .long, help: ArgumentHelp("Add or override a user attribute; VALUE is read as JSON when it parses, else as a string (repeatable).", valueName: "key=value"))
    var context: [String] = []

    @Option(name: .long, help: ArgumentHelp("The evaluation time, ISO-8601 (time is an input: the wall clock is never read).", valueName: "time"))
    var now: String?

    /// The profile these options select in a workspace.
    func profile(in ws: Workspace) -> Result<UserProfile, Diagnostic> {
        ws.users.user(named: user, context: context, now: now)
    }
}

enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}

enum Console {
    static var stdoutIsTerminal: Bool { isatty(1) == 1 }
    static var stderrIsTerminal: Bool { isatty(2) == 1 }
    static var noColor: Bool { ProcessInfo.processInfo.environment["NO_COLOR"].map { !$0.isEmpty } ?? false }
    static var outStyle: Style { Style(color: stdoutIsTerminal && !noColor) }
    static var errStyle: Style { Style(color: stderrIsTerminal && !noColor) }

    static func out(_ s: String) {
        FileHandle.standardOutput.write(Data(s.utf8))
    }

    static func error(_ s: String) {
        FileHandle.standardError.write(Data((errStyle.error("error:") + " " + s + "\n").utf8))
    }

    /// Prints diagnostics to stderr (sorted by location, de-duplicated); returns whether any is an error.
    @discardableResult
    static func report(_ d: Diagnostics) -> Bool {
        let style = errStyle
        var text = ""
        for x in d.sorted { text += TreeOutput.diagnosticLine(x, style: style) + "\n" }
        if !text.isEmpty { FileHandle.standardError.write(Data(text.utf8)) }
        return d.hasErrors
    }
}
