import Foundation
import LoomCore
import LoomNavigation
import LoomStyles

/// A screen file parsed and checked: the screen (nil when it cannot be parsed), every problem
/// found, and the static check the resolver needs (nil when there is no screen).
public struct LoadedScreen {
    public var screen: Screen?
    public var diagnostics: Diagnostics
    public var check: ScreenCheck?

    public init(screen: Screen?, diagnostics: Diagnostics, check: ScreenCheck?) {
        self.screen = screen
        self.diagnostics = diagnostics
        self.check = check
    }
}

/// Everything one command works on: the project, its plugins loaded into one plugin host, its
/// screens (parsed and checked once), its users. One workspace per thread.
public final class Workspace {
    public struct Options: Sendable {
        public var project: String?
        public var extraPluginDirs: [String] = []
        public var limits: PluginLimits = .default
        /// Makes the plugin host (LoomCommands' `Workspace.open` gives the Lua engine when nil;
        /// opening with nil here is an error, not a project without plugins).
        public var pluginHost: PluginHostFactory? = nil
        /// How much of each file the workspace reads (`--max-file-size`).
        public var fileLimits: FileLimits = .standard
        public var standardPlugins: String? = nil
        public var verbose = false
        /// Plugin folders loaded instead of the project's (`host diff --plugins-old`).
        public var replacesProjectPlugins: [String]? = nil
        /// The device context resolutions use (`--device`, `--orientation`, `--traits`); nil:
        /// the default device, not chosen (see `useDevice`).
        public var device: DeviceContext? = nil
        public init() {}
    }

    public let project: Project
    /// The plugins, through the protocol LoomPlugins' `PluginEngine` implements.
    public let pluginHost: any PluginHost
    public var factory: Factory { pluginHost.factory }
    public private(set) var users = UserProfiles()
    /// The project's strings (`strings/<locale>.json`, docs/localization.md): empty without a
    /// strings folder.
    public private(set) var strings = StringCatalog()
    /// The errors of a clients.json that could not be read (then `factory.clients` is nil): a
    /// screen resolved without it could hold nodes a client cannot render, so no command
    /// resolves one (docs/screens.md, "Client compatibility").
    public private(set) var clientsErrors = Diagnostics()
    /// Problems with the project itself (loom.json, users.json, plugin folders).
    public private(set) var diagnostics = Diagnostics()
    /// Parsed screens by file path.
    private var screensByFile: [String: LoadedScreen] = [:]
    /// Screen files with templates or data (expanded before they are parsed).
    var dataFedFiles: Set<String> = []
    /// Those of them with a source a plugin provides per request (`host.data`).
    var providedDataFiles: Set<String> = []
    /// The data source names each screen file declares (`declaredData(file:)`).
    var declaredDataByFile: [String: Set<String>] = [:]
    private var screenIndex: [String: String]?
    var cachedFlows: (FlowSet, Diagnostics)?
    var cachedConfiguration: Diagnostics?
    private var resolutionCaches: [String: ResolutionCache] = [:]
    /// The visible actions of the last resolved trees read (`actions(of:file:)`), most recent
    /// first: a tree cache hit hands out the same tree, whose actions are the same.
    var actionsByTree: [(file: String, tree: ResolvedNode, actions: ScreenActions)] = []
    /// The style library and the device context (Workspace+Styles.swift).
    let styles = WorkspaceStyles()

    /// `anchor`: a screen argument (a file or an id) whose project is wanted when `--project`
    /// is not given (see `projectRoot(explicit:screen:)`).
    /// Throws when the plugin host cannot be made (no `pluginHost` in the options, or the Lua
    /// runtime does not start); problems with the project are `diagnostics`.
    public init(options: Options, anchor: String? = nil) throws {
        guard let makeHost = options.pluginHost else {
            throw WorkspaceOpenError("no plugin host to load the project's plugins with (Workspace.Options.pluginHost; Workspace.open gives the Lua engine)")
        }
        let root = Workspace.projectRoot(explicit: options.project, screen: anchor)
        var (project, d) = Project.load(root: root, limits: options.fileLimits)
        if options.project != nil, !SafeFile.exists(root) {
            d.error("project folder '\(root)' does not exist")
        }
        self.project = project
        diagnostics.append(contentsOf: d)
        pluginHost = try makeHost(options.limits)
        pluginHost.logToStderr = options.verbose
        var folders: [PluginFolder] = []
        let std = options.standardPlugins ?? PluginDiscovery.standardPluginsDirectory()
        switch PluginDiscovery.folders(in: std) {
        case .success(let f): folders += f
        case .failure(let e): diagnostics.append(e)
        }
        for dir in options.replacesProjectPlugins ?? project.pluginDirs {
            // The default `plugins` folder is optional; a folder named in loom.json (or given
            // instead of the project's) is not.
            if !SafeFile.exists(dir) && !project.pluginDirsDeclared && options.replacesProjectPlugins == nil { continue }
            switch PluginDiscovery.folders(in: dir) {
            case .success(let f): folders += f
            case .failure(let e): diagnostics.append(project.locatedAtName(e, key: "plugins:" + dir))
            }
        }
        for dir in options.extraPluginDirs {
            switch PluginDiscovery.folders(in: dir) {
            case .success(let f): folders += f
            case .failure(let e): diagnostics.append(e)
            }
        }
        pluginHost.load(folders: folders, limits: project.fileLimits)
        diagnostics.append(contentsOf: registerNamedRules())
        let (u, ud) = UserProfiles.load(project.usersFile, limits: project.fileLimits)
        users = u
        diagnostics.append(contentsOf: ud)
        let (catalog, sd) = StringCatalog.load(folder: project.stringsDir, defaultLocale: project.defaultLocale, limits: project.fileLimits, root: project.root)
        strings = catalog
        diagnostics.append(contentsOf: sd)
        let (clients, cd) = ClientTable.load(project.clientsFile, limits: project.fileLimits)
        factory.clients = clients
        diagnostics.append(contentsOf: cd)
        clientsErrors = Diagnostics(cd.items.filter { $0.severity == .error })
        useDevice(options.device)
    }

    /// The project folder of a command: `explicit` (`--project`) when given; else, when `screen`
    /// names an existing file, that screen's project (`loom.json` in its folder or above, see
    /// `Project.forScreen`); else the working folder. A screen given by id locates nothing.
    public static func projectRoot(explicit: String?, screen: String?) -> String {
        if let explicit { return explicit }
        if let screen, SafeFile.exists(screen) { return Project.forScreen(screen) }
        return "."
    }

    /// Load errors of plugins plus project problems (loom.json, users.json, rules, flows and
    /// the entry: see `configurationDiagnostics`).
    public var loadDiagnostics: Diagnostics {
        var d = diagnostics
        d.append(contentsOf: pluginHost.diagnostics)
        d.append(contentsOf: configurationDiagnostics())
        return d
    }

    // MARK: Screens

    /// Parses and checks a screen file (once). A screen with templates is expanded with its
    /// declared data (files, plugin sources' samples) first (docs/data.md).
    public func screen(file: String) -> LoadedScreen {
        if let s = screensByFile[file] { return s }
        let result = loadScreen(file: file, request: nil)
        screensByFile[file] = result
        return result
    }

    /// Parses, expands (with `request`'s data and params when given) and checks a screen file.
    func loadScreen(file: String, request: DataRequest?) -> LoadedScreen {
        var d = Diagnostics()
        let result: LoadedScreen
        do {
            var doc = try SafeFile.parseJSON(atPath: file, displayPath: file, limits: project.fileLimits)
            if TemplateExpander.needsExpansion(doc) || !(request?.data.isEmpty ?? true) {
                dataFedFiles.insert(file)
                let (expanded, ed) = expand(doc, request: request)
                d.append(contentsOf: ed)
                guard let expanded else { return LoadedScreen(screen: nil, diagnostics: d, check: nil) }
                doc = expanded
            }
            let defaultID = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
            let (screen, pd) = ScreenParser.parse(doc, defaultID: defaultID)
            d.append(contentsOf: pd)
            if let screen {
                let check = ScreenChecker.check(screen, factory: factory)
                d.append(contentsOf: check.diagnostics)
                result = LoadedScreen(screen: screen, diagnostics: d, check: check)
            } else {
                result = LoadedScreen(screen: nil, diagnostics: d, check: nil)
            }
        } catch {
            d.append(error)
            result = LoadedScreen(screen: nil, diagnostics: d, check: nil)
        }
        return result
    }

    /// Screen id → file, for every screen in the project's screens folder.
    public func screenFiles() -> [String: String] {
        if let i = screenIndex { return i }
        var index: [String: String] = [:]
        for f in project.screenFiles() {
            let id = screen(file: f).screen?.id ?? ((f as NSString).lastPathComponent as NSString).deletingPathExtension
            if index[id] == nil { index[id] = f }
        }
        screenIndex = index
        return index
    }

    /// A screen argument: a path to a file, or a screen id in the project's screens folder. A
    /// folder of that name (`home/` in the current folder) is not a screen: the id is looked up.
    public func locateScreen(_ arg: String) -> Result<String, Diagnostic> {
        let folder = SafeFile.isDirectory(arg)
        if !folder && SafeFile.exists(arg) { return .success(arg) }
        return screenFile(named: arg, because: folder ? "a folder, not a screen file" : "not a file")
    }

    /// A screen argument that is not a file: a screen id in the project's screens folder (or a
    /// path whose file name, without `.json`, is one). `because`: what the argument is instead
    /// of a screen file, for the error.
    public func screenFile(named arg: String, because notAFile: String = "not a file") -> Result<String, Diagnostic> {
        let ids = screenFiles()
        if let f = ids[arg] { return .success(f) }
        let stem = ((arg as NSString).lastPathComponent as NSString).deletingPathExtension
        if let f = ids[stem] { return .success(f) }
        return .failure(.error("no screen '\(arg)': \(notAFile), and no screen with that id in \(project.screensDir)\(DidYouMean.hint(stem, among: ids.keys))"))
    }

    /// Resolves a parsed screen for a user, with the parameters of the step that opened it.
    public func resolve(
        _ screen: Screen, check: ScreenCheck, user: UserProfile, explain: Bool = false, params: [String: String] = [:]
    ) -> Resolution {
        let ctx = ResolutionContext(user: user, screenID: screen.id, explain: explain, params: params)
        prepare(ctx)
        return resolver(screen, check: check, cacheKey: styleCacheKey(screen.file)).resolve(for: user, context: ctx)
    }

    /// Gives a resolution context what every resolution of this workspace has: the entry steps
    /// to its screen, the device attributes and, with styles, each component's resolved style.
    /// For callers that keep their own `Resolver` (`host eval`, `host matrix`).
    public func prepare(_ ctx: ResolutionContext) {
        ctx.environment = environment(for: ctx.screenID)
    }

    /// What a resolution of screen `screenID` asks of this workspace (see `prepare`).
    public func environment(for screenID: String) -> ResolutionEnvironment {
        var env = ResolutionEnvironment()
        env.entrySteps = { [unowned self] in self.entrySteps(to: screenID) }
        prepareStyles(&env)
        return env
    }

    /// A resolver for a parsed screen, sharing the screen's cache of resolved single
    /// components and items across resolutions.
    public func resolver(_ screen: Screen, check: ScreenCheck) -> Resolver {
        resolver(screen, check: check, cacheKey: screen.file)
    }

    /// The same, with the caches of `cacheKey` (a screen file, and the device context when the
    /// project has styles: what builders see differs per device).
    func resolver(_ screen: Screen, check: ScreenCheck, cacheKey: String) -> Resolver {
        let cache: ResolutionCache
        if let c = resolutionCaches[cacheKey] { cache = c } else {
            cache = ResolutionCache()
            resolutionCaches[cacheKey] = cache
        }
        return Resolver(factory: factory, screen: screen, check: check, cache: cache)
    }
}
