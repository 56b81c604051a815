import Foundation
import LoomCore
import LoomWorkspace
import LoomPlugins

/// Finds scenario files and the project each one runs in.
///
/// - A project's scenarios: `*.lua` under its `scenarios` folder (`loom.json` key `scenarios`).
///   Their project is the folder of the nearest `loom.json` above the file; without one, the
///   folder above `scenarios/`.
/// - A plugin's own scenarios: `*.lua` under `PLUGIN/scenarios/`, where `PLUGIN/plugin.lua`
///   exists. They are self-contained: the project folder is `PLUGIN/scenarios` itself (its
///   `screens/`, `users.json`, `flows.json`, optional `loom.json`), with the standard plugins
///   and the plugin under test loaded.
public enum ScenarioDiscovery {
    static let snapshotsFolder = "__snapshots__"

    /// The files to run, in a deterministic order (sorted paths, duplicates removed).
    public static func files(_ options: ScenarioOptions) -> (files: [ScenarioFile], errors: [Diagnostic]) {
        var errors: [Diagnostic] = []
        var out: [ScenarioFile] = []
        var seen = Set<String>()
        func add(_ f: ScenarioFile) {
            let key = standardized(f.path)
            if seen.insert(key).inserted { out.append(f) }
        }
        if options.paths.isEmpty {
            let root = options.project ?? Project.findRoot(from: ".") ?? "."
            let (project, d) = Project.load(root: root, limits: options.fileLimits)
            errors += d.errors
            for f in luaFiles(under: project.scenariosDir) {
                add(scenarioFile(f, options: options, knownProject: root))
            }
            for dir in project.pluginDirs where FileManager.default.fileExists(atPath: dir) {
                guard case .success(let folders) = PluginDiscovery.folders(in: dir) else { continue }
                for p in folders {
                    for f in luaFiles(under: Project.join(p.path, "scenarios")) {
                        add(ScenarioFile(path: f, projectRoot: Project.join(p.path, "scenarios"), plugin: p.path))
                    }
                }
            }
            return (out, errors)
        }
        for p in options.paths {
            guard SafeFile.exists(p) else {
                errors.append(.error("no scenario file or folder '\(p)'"))
                continue
            }
            if SafeFile.isDirectory(p) {
                let found = luaFiles(under: p)
                for f in found { add(scenarioFile(f, options: options, knownProject: nil)) }
            } else {
                add(scenarioFile(p, options: options, knownProject: nil))
            }
        }
        return (out, errors)
    }

    /// Every `*.lua` below `dir`, recursively and sorted, skipping `__snapshots__` and hidden
    /// folders; in a plugin folder (one holding `plugin.lua`) only its `scenarios/` is searched.
    public static func luaFiles(under dir: String) -> [String] {
        let fm = FileManager.default
        var isDir: ObjCBool = false
        guard fm.fileExists(atPath: dir, isDirectory: &isDir), isDir.boolValue else { return [] }
        var out: [String] = []
        func walk(_ d: String) {
            // A plugin folder: only its own scenarios/ (not its code or unit tests).
            if fm.fileExists(atPath: Project.join(d, "plugin.lua")) {
                let sc = Project.join(d, "scenarios")
                if d != sc, fm.fileExists(atPath: sc) { walk(sc) }
                return
            }
            let entries = ((try? fm.contentsOfDirectory(atPath: d)) ?? []).sorted()
            for e in entries where !e.hasPrefix(".") {
                let p = Project.join(d, e)
                var sub: ObjCBool = false
                guard fm.fileExists(atPath: p, isDirectory: &sub) else { continue }
                if sub.boolValue {
                    if e == snapshotsFolder { continue }
                    walk(p)
                } else if e.hasSuffix(".lua") {
                    out.append(p)
                }
            }
        }
        walk(dir == "." ? "." : dir)
        return out.map { $0.hasPrefix("./") ? String($0.dropFirst(2)) : $0 }.sorted()
    }

    /// The project of one scenario file.
    public static func scenarioFile(_ path: String, options: ScenarioOptions, knownProject: String?) -> ScenarioFile {
        if let (root, plugin) = pluginScenarioRoot(path) {
            return ScenarioFile(path: path, projectRoot: root, plugin: plugin)
        }
        if let p = options.project ?? knownProject { return ScenarioFile(path: path, projectRoot: p) }
        return ScenarioFile(path: path, projectRoot: projectRoot(of: path))
    }

    /// `(PLUGIN/scenarios, PLUGIN)` when the file lies under a plugin's `scenarios/` folder
    /// (and no `loom.json` sits between the file and that folder).
    static func pluginScenarioRoot(_ path: String) -> (String, String)? {
        let fm = FileManager.default
        var dir = parent(path)
        for _ in 0..<64 {
            if (dir as NSString).lastPathComponent == "scenarios" {
                let plugin = parent(dir)
                if fm.fileExists(atPath: Project.join(plugin, "plugin.lua")) { return (dir, plugin) }
            }
            if fm.fileExists(atPath: Project.join(dir, Project.manifestName)) { return nil }
            let up = parent(dir)
            if standardized(up) == standardized(dir) { return nil }
            dir = up
        }
        return nil
    }

    /// The nearest folder holding `loom.json` above the file; else the folder above a
    /// `scenarios/` folder; else the file's folder.
    static func projectRoot(of path: String) -> String {
        let dir = parent(path)
        if let r = Project.findRoot(from: dir) { return r }
        var d = dir
        for _ in 0..<64 {
            if (d as NSString).lastPathComponent == "scenarios" { return parent(d) }
            let up = parent(d)
            if standardized(up) == standardized(d) { break }
            d = up
        }
        return dir
    }

    static func parent(_ path: String) -> String {
        let std = path.hasPrefix("/") ? path : (path == "." ? FileManager.default.currentDirectoryPath : Project.join(FileManager.default.currentDirectoryPath, path))
        let p = ((std as NSString).standardizingPath as NSString).deletingLastPathComponent
        return Project.displayPath(p.isEmpty ? "/" : p)
    }

    static func standardized(_ path: String) -> String {
        let abs = path.hasPrefix("/") ? path : Project.join(FileManager.default.currentDirectoryPath, path)
        return (abs as NSString).standardizingPath
    }
}
