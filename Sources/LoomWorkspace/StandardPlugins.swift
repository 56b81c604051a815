/// The standard plugins (`Plugins/` of the Loom repository) embedded in the binary, so a host
/// copied anywhere still has them. `scripts/embed-plugins` regenerates the file list; a test
/// fails when the embedded copy and `Plugins/` differ.
public enum StandardPlugins {
    public static let root = "<builtin>/Plugins"

    /// "<builtin>/Plugins/basic/plugin.lua" → source.
    public static let virtualFiles: [String: String] = {
        var out: [String: String] = [:]
        for (rel, text) in EmbeddedPlugins.files { out[root + "/" + rel] = text }
        return out
    }()

    /// The shared library modules plugins `require` (docs/plugin-api.md, "Shared modules"): the
    /// targeting plugin's helpers, by name → embedded file.
    public static let sharedModules: [String: String] = [
        "loom.semver": root + "/targeting/semver.lua",
        "loom.time": root + "/targeting/iso8601.lua",
        "loom.murmur3": root + "/targeting/murmur3.lua",
    ]

    public static func isVirtual(_ path: String) -> Bool { path.hasPrefix("<builtin>") }

    public static func folders(under dir: String) -> [PluginFolder] {
        var names = Set<String>()
        for rel in EmbeddedPlugins.files.keys {
            let parts = rel.split(separator: "/")
            if parts.count == 2, parts[1] == "plugin.lua" { names.insert(String(parts[0])) }
        }
        if dir != root {
            // A single embedded plugin folder.
            return virtualFiles[dir + "/plugin.lua"] != nil ? [PluginFolder(path: dir)] : []
        }
        return names.sorted().map { PluginFolder(path: root + "/" + $0) }
    }
}
