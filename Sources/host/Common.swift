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

    @Option(name: .customLong("lua-time-limit"), help: ArgumentHelp("Time budget of every call into Lua, in milliseconds (\(NumericFlag.luaTimeLimit.text); default: 100).", valueName: "ms"), transform: NumericFlag.luaTimeLimit.parse)
    var luaTimeLimit: Int = 100

    @Option(name: .customLong("lua-memory-limit"), help: ArgumentHelp("Memory cap on what plugin code allocates in each Lua state, in MiB; the host's own tables are not counted (\(NumericFlag.luaMemoryLimit.text); default: 64).", valueName: "mb"), transform: NumericFlag.luaMemoryLimit.parse)
    var luaMemoryLimit: Int = 64

    @Option(name: .customLong("lua-total-time-limit"), help: ArgumentHelp("Time budget of all the Lua one command runs (every call together), in seconds (\(NumericFlag.luaTotalTimeLimit.text); default: 60).", valueName: "seconds"), transform: NumericFlag.luaTotalTimeLimit.parse)
    var luaTotalTimeLimit: Int = 60

    @Option(name: .customLong("max-file-size"), help: ArgumentHelp("Largest file the host reads (screens, loom.json, users.json, flows.json, plugin.lua, scenarios, snapshots), in MiB (\(NumericFlag.maxFileSize.text); default: \(SafeFile.defaultMaxMegabytes)).", valueName: "mb"), transform: NumericFlag.maxFileSize.parse)
    var maxFileSize: Int = SafeFile.defaultMaxMegabytes

    @Flag(name: .long, help: "Print what plugins log (print, host.log) to stderr.")
    var verbose = false

    func validate() throws {
        // Also checked here for values that bypass parsing (the defaults).
        try NumericFlag.luaTimeLimit.check(luaTimeLimit)
        try NumericFlag.luaMemoryLimit.check(luaMemoryLimit)
        try NumericFlag.luaTotalTimeLimit.check(luaTotalTimeLimit)
        try NumericFlag.maxFileSize.check(maxFileSize)
    }

    /// The Lua limits these options set (every value range-checked: no overflow).
    var limits: LuaLimits {
        LuaLimits(timeBudgetMilliseconds: luaTimeLimit, memoryMegabytes: luaMemoryLimit,
                  totalTimeBudgetMilliseconds: luaTotalTimeLimit * 1000)
    }

    /// Applies the process-wide settings (the file size cap); call before reading any file.
    func apply() {
        SafeFile.maxBytes = maxFileSize << 20
    }

    var workspaceOptions: Workspace.Options {
        var o = Workspace.Options()
        o.project = project
        o.extraPluginDirs = plugins
        o.limits = limits
        o.verbose = verbose
        return o
    }

    func workspace(anchor: String?) throws -> Workspace {
        apply()
        do {
            return try Workspace(options: workspaceOptions, anchor: anchor)
        } catch {
            Console.error("cannot start the Lua runtime: \(error)")
            throw ExitCode(1)
        }
    }
}

/// A numeric option's documented range, checked while parsing: a value out of range, not a
/// whole number, or too large for any integer is a usage error (exit 64), never a trap.
struct NumericFlag {
    var flag: String
    var unit: String
    var range: ClosedRange<Int>

    static let luaTimeLimit = NumericFlag(flag: "--lua-time-limit", unit: "milliseconds", range: 1...3_600_000)
    static let luaMemoryLimit = NumericFlag(flag: "--lua-memory-limit", unit: "MiB", range: 1...65_536)
    static let luaTotalTimeLimit = NumericFlag(flag: "--lua-total-time-limit", unit: "seconds", range: 1...86_400)
    static let maxFileSize = NumericFlag(flag: "--max-file-size", unit: "MiB", range: SafeFile.maxMegabytesRange)
    static let jobs = NumericFlag(flag: "--jobs", unit: "threads", range: 1...256)
    static let scenarioTimeLimit = NumericFlag(flag: "--scenario-time-limit", unit: "milliseconds", range: 1...3_600_000)

    /// `1–65536`, as --help shows it.
    var text: String { "\(range.lowerBound)–\(range.upperBound)" }

    var message: String { "\(flag) takes a whole number of \(unit) from \(range.lowerBound) to \(range.upperBound)" }

    func parse(_ s: String) throws -> Int {
        let t = s.trimmingCharacters(in: .whitespaces)
        let digits = t.hasPrefix("+") || t.hasPrefix("-") ? t.dropFirst() : Substring(t)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
            throw ValidationError("\(message), found '\(TextEscape.escaped(s))'")
        }
        guard let v = Int(t), range.contains(v) else {
            throw ValidationError("\(message), found \(TextEscape.escaped(t))")
        }
        return v
    }

    func check(_ v: Int) throws {
        guard range.contains(v) else { throw ValidationError("\(message), found \(v)") }
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

    /// A `--context` value that cannot be used (no `=`, nested too deep, clashing keys) is a
    /// usage error (exit 64), reported before anything loads.
    func validate() throws {
        for kv in context {
            if case .failure(let d) = UserProfiles.contextAttribute(kv) {
                throw ValidationError(TextEscape.escaped(d.message))
            }
        }
    }

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
        FileHandle.standardError.write(Data((errStyle.error("error:") + " " + TextEscape.escaped(s) + "\n").utf8))
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
