import LoomCore

/// Everything that can change what `host run` prints, hashed (docs/changes.md lists it): the
/// host's version, the screen, the project's files, every plugin folder, the patches and the
/// arguments.
public struct RunInputs: Sendable {
    public var projectRoot: String
    public var screen: String
    public var pluginDirs: [String]
    public var patches: [String] = []
    /// Arguments that change the output (user, context, now, flags, limits), in a fixed order.
    public var arguments: [String] = []
    /// How much of each input file is read to hash it (`--max-file-size`).
    public var fileLimits: FileLimits

    public init(projectRoot: String, screen: String, pluginDirs: [String], fileLimits: FileLimits) {
        self.fileLimits = fileLimits
        self.projectRoot = projectRoot
        self.screen = screen
        self.pluginDirs = pluginDirs
    }

    public var hash: String {
        let (project, _) = Project.load(root: projectRoot, limits: fileLimits)
        var h = ContentHash()
        h.add("loom " + LoomVersion.string)
        h.add("screen " + screen)
        if SafeFile.exists(screen) { h.add(file: screen, limits: fileLimits) }
        for f in [Project.join(projectRoot, Project.manifestName), Project.join(projectRoot, "rules.json"),
                  project.usersFile, project.clientsFile, project.flowsFile] {
            h.add(file: f, limits: fileLimits)
        }
        h.add(folder: project.screensDir, limits: fileLimits)
        h.add(folder: project.stylesDir, limits: fileLimits)
        h.add(folder: project.stringsDir, limits: fileLimits)
        // Screens' data files (docs/data.md) live in the project's `data` folder by convention.
        h.add(folder: Project.join(projectRoot, "data"), limits: fileLimits)
        for d in project.pluginDirs + pluginDirs { h.add(folder: d, limits: fileLimits) }
        for p in patches { h.add(file: p, limits: fileLimits) }
        for a in arguments { h.add("arg " + a) }
        return h.hex
    }
}
