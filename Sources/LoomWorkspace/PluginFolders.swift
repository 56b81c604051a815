import Foundation
import LoomCore

/// A plugin folder to load: its display path and its name (the folder's name).
public struct PluginFolder: Sendable, Hashable {
    public var path: String
    public var name: String
    public init(path: String) {
        self.path = path
        name = (path as NSString).lastPathComponent
    }
}

public enum PluginDiscovery {
    /// `dir` holding `plugin.lua` is one plugin; any other folder is a folder of plugins (its
    /// subfolders holding `plugin.lua`, in name order).
    public static func folders(in dir: String) -> Result<[PluginFolder], Diagnostic> {
        if StandardPlugins.isVirtual(dir) { return .success(StandardPlugins.folders(under: dir)) }
        guard SafeFile.isDirectory(dir) else {
            return .failure(.error("plugin folder '\(dir)' does not exist", at: SourceLocation(file: dir)))
        }
        if SafeFile.exists(dir + "/plugin.lua") { return .success([PluginFolder(path: dir)]) }
        let entries = (SafeFile.contentsOfDirectory(dir) ?? []).sorted()
        var out: [PluginFolder] = []
        for e in entries where !e.hasPrefix(".") {
            let p = dir == "." ? e : dir + "/" + e
            if SafeFile.exists(p + "/plugin.lua") { out.append(PluginFolder(path: p)) }
        }
        return .success(out)
    }

    /// The standard plugins: `LOOM_STANDARD_PLUGINS` when set; else a `Plugins/` folder beside
    /// or above the executable (a checkout under `swift run`); else the copy embedded in the
    /// binary (a binary copied anywhere).
    public static func standardPluginsDirectory() -> String {
        if let env = ProcessInfo.processInfo.environment["LOOM_STANDARD_PLUGINS"], !env.isEmpty { return env }
        let exe = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        var dir = exe.deletingLastPathComponent()
        for _ in 0..<8 {
            let candidate = dir.appendingPathComponent("Plugins")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("basic/plugin.lua").path) {
                return displayPath(candidate.path)
            }
            let parent = dir.deletingLastPathComponent()
            if parent.path == dir.path { break }
            dir = parent
        }
        return StandardPlugins.root
    }

    /// A path relative to the working directory when it lies below it.
    public static func displayPath(_ path: String) -> String {
        let cwd = FileManager.default.currentDirectoryPath
        let std = (path as NSString).standardizingPath
        if std.hasPrefix(cwd + "/") { return String(std.dropFirst(cwd.count + 1)) }
        return std
    }
}
