import Foundation

/// The files a screen's resolution reads from a project, for `host watch`: `loom.json`,
/// `rules.json`, the users, flows, clients and journeys files, the screens (`.json` files below the screens
/// folder), everything below the styles, plugin and `data` folders (the data files screens
/// declare, docs/data.md, by convention), and any other file or folder the
/// caller names (a screen file outside the project, `--plugins` folders). Any other file in the
/// project folder (a log the watch's own output is redirected to, a build product, a note) is
/// not an input: a change to it resolves nothing and prints nothing.
public struct ProjectInputs: Sendable {
    private let files: Set<String>
    private let folders: [String]
    private let screenFolder: String

    public init(project: Project, files extraFiles: [String] = [], folders extraFolders: [String] = []) {
        var files = Set([project.manifest ?? Project.join(project.root, Project.manifestName),
                         Project.join(project.root, "rules.json"), project.usersFile, project.flowsFile,
                         project.clientsFile, Project.join(project.root, "journeys.json")].map(Self.absolute))
        files.formUnion(extraFiles.map(Self.absolute))
        self.files = files
        folders = ([project.stylesDir, project.stringsDir, Project.join(project.root, "data")] + project.pluginDirs + extraFolders).map { Self.absolute($0) + "/" }
        screenFolder = Self.absolute(project.screensDir) + "/"
    }

    /// Whether a change to `path` (a file, or a folder created or removed) can change what the
    /// project resolves to.
    public func contains(_ path: String) -> Bool {
        let p = Self.absolute(path)
        if files.contains(p) { return true }
        // A folder of the inputs itself (created, removed, renamed) or anything below one.
        let asFolder = p + "/"
        for f in folders + [screenFolder] where f.hasPrefix(asFolder) { return true }
        if folders.contains(where: { p.hasPrefix($0) }) { return true }
        if p.hasPrefix(screenFolder) {
            // Screens are JSON files; a folder below the screens folder may hold some.
            return p.hasSuffix(".json") || !(p.split(separator: "/").last ?? "").contains(".")
        }
        return false
    }

    static func absolute(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }
}
