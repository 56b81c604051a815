import LoomCore

/// Where a project's property files are: its styles folder (`loom.json` key `styles`, default
/// `styles`), then each plugin's `styles/` folder as fallbacks.
public enum StyleFolders {
    public static let defaultFolder = "styles"

    /// The project's styles folder: `loom.json`'s `"styles"` (a path relative to the project)
    /// when given, else `<root>/styles`. A `"styles"` that is not a string is a located error.
    /// loom.json is read up to `limits`.
    public static func projectFolder(root: String, limits: FileLimits) -> (String, Diagnostics) {
        var d = Diagnostics()
        let manifest = Project.join(root, Project.manifestName)
        let fallback = Project.join(root, defaultFolder)
        guard SafeFile.exists(manifest), let doc = try? SafeFile.parseJSON(atPath: manifest, displayPath: manifest, limits: limits),
              let o = doc.root.object, let m = o.member("styles")
        else { return (fallback, d) }
        guard let s = m.value.string, !s.isEmpty else {
            d.error("\"styles\" is the styles folder (a string), found \(m.value.kindName)", at: doc.location(m.value.position))
            return (fallback, d)
        }
        return (Project.join(root, s), d)
    }

    /// The folders a library loads, in priority order: the project's, then `<plugin>/styles` of
    /// each plugin folder in the order given.
    public static func folders(projectRoot: String, pluginFolders: [String], limits: FileLimits) -> ([String], Diagnostics) {
        let (project, d) = projectFolder(root: projectRoot, limits: limits)
        return ([project] + pluginFolders.map { Project.join($0, defaultFolder) }, d)
    }
}
