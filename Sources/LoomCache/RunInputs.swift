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

    public init(projectRoot: String, screen: String, pluginDirs: [String]) {
        self.projectRoot = projectRoot
        self.screen = screen
        self.pluginDirs = pluginDirs
    }

    public var hash: String {
        let (project, _) = Project.load(root: projectRoot)
        var h = ContentHash()
        h.add("loom " + LoomVersion.string)
        h.add("screen " + screen)
        if SafeFile.exists(screen) { h.add(file: screen) }
        for f in [Project.join(projectRoot, Project.manifestName), Project.join(projectRoot, "rules.json"),
                  project.usersFile, project.flowsFile] {
            h.add(file: f)
        }
        h.add(folder: project.screensDir)
        h.add(folder: project.stylesDir)
        for d in project.pluginDirs + pluginDirs { h.add(folder: d) }
        for p in patches { h.add(file: p) }
        for a in arguments { h.add("arg " + a) }
        return h.hex
    }
}
