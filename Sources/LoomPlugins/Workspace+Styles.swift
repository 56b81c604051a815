import LoomCore
import LoomStyles
import LuaRuntime
import OrderedCollections

/// A workspace's styles: the library (loaded once), the device context resolutions use, each
/// component type's style schema and the styles already turned into node styles.
public final class WorkspaceStyles {
    var cache: StyleCache?
    var loadDiagnostics = Diagnostics()
    /// The device, orientation and size classes screens are resolved for (`--device`, …).
    public var context: DeviceContext = .standard {
        didSet { if context != oldValue { flat = nil } }
    }
    /// `context`'s attributes as rules read them (made once per context).
    var flat: [String: JSONValue]?
    /// Whether a device was chosen (`--device`, `--orientation`, `--traits`, `t:open` options).
    var chosen = false
    var schemas: [String: StyleSchema?] = [:]
    /// Node styles by names, type and device context (a 1,000-component screen with a few
    /// dozen distinct styles converts a few dozen).
    var nodeStyles: [NodeStyleKey: (NodeStyle, Diagnostics)] = [:]

    struct NodeStyleKey: Hashable {
        var names: [String]
        var type: String
        var context: DeviceContext
    }

    init() {}
}

extension Workspace {
    /// The device context screens are resolved for (default: docs/styles.md's default device).
    public var deviceContext: DeviceContext {
        get { styles.context }
        set {
            styles.context = newValue
            styles.chosen = true
        }
    }

    /// Chooses the device context (nil: the default, as if none was chosen).
    public func useDevice(_ context: DeviceContext?) {
        styles.context = context ?? .standard
        styles.chosen = context != nil
    }

    /// Whether rules see the device attributes: when a device was chosen or the project has
    /// styles (otherwise resolutions are exactly what they were before devices existed).
    public var deviceAttributesActive: Bool { styles.chosen || hasStyles }

    /// The project's style library: its styles folder (`loom.json` `"styles"`, default
    /// `styles/`) first, then each plugin's own `styles/` folder (for each file name the first
    /// folder holding it wins). Loaded once.
    public var styleCache: StyleCache {
        if let c = styles.cache { return c }
        let pluginFolders = engine.plugins.map(\.info.folder)
        let folders = [project.stylesDir] + pluginFolders.map { Project.join($0, StyleFolders.defaultFolder) }
        let (lib, d) = StyleLibrary.load(folders: folders)
        let c = StyleCache(library: lib)
        styles.cache = c
        styles.loadDiagnostics = d
        return c
    }

    /// Problems reading the property files (unreadable JSON, bad `@imports` lists, …).
    public var styleLoadDiagnostics: Diagnostics {
        _ = styleCache
        return styles.loadDiagnostics
    }

    /// Whether the project (or a plugin) has any property file: without one, styles are not
    /// resolved and a `style` key is shown as written (as before styles existed).
    public var hasStyles: Bool { !styleCache.library.files.isEmpty }

    /// Distinguishes the resolution caches of each device context (empty without styles).
    var styleCacheSuffix: String {
        hasStyles ? "\u{1}" + deviceContext.summary : ""
    }

    /// Gives a resolution the device context: its attributes for rules and, when the project
    /// has styles, each component's resolved style (diagnostics reported once per resolution).
    func prepareStyles(_ ctx: ResolutionContext) {
        if deviceAttributesActive {
            if styles.flat == nil { styles.flat = Workspace.flatAttributes(deviceContext.attributes) }
            ctx.deviceAttributes = styles.flat!
        }
        guard hasStyles else { return }
        var reported: Set<NodeStyleKey> = []
        ctx.styleFor = { [unowned self] c, reg, ctx in
            self.nodeStyle(for: c, registration: reg, ctx: ctx, reported: &reported)
        }
    }

    typealias NodeStyleKey = WorkspaceStyles.NodeStyleKey

    /// `{"device": {...}, "traits": {...}, "orientation"}` plus the dotted paths rules name
    /// (`device.idiom`, `traits.horizontal`).
    static func flatAttributes(_ v: JSONValue) -> [String: JSONValue] {
        guard case .object(let o) = v else { return [:] }
        var out: [String: JSONValue] = [:]
        for (k, x) in o {
            out[k] = x
            if case .object(let inner) = x { for (k2, y) in inner { out[k + "." + k2] = y } }
        }
        return out
    }

    /// The style names of a component: its `style` key (a name or a list of names), else a
    /// style named after its type when one exists. Names that do not exist are warnings.
    func styleNames(_ c: Component, registration reg: ComponentRegistration?, ctx: ResolutionContext) -> [String]? {
        let lib = styleCache.library
        guard let st = c.style else {
            if lib.hasStyle(c.type) { return [c.type] }
            if let t = reg?.type, t != c.type, lib.hasStyle(t) { return [t] }
            return nil
        }
        let file = c.location.file
        var written: [(String, SourceLocation)] = []
        if let s = st.string {
            written = [(s, st.position.located(in: file))]
        } else if let a = st.array {
            for x in a {
                guard let s = x.string else {
                    ctx.diagnostics.warning("\"style\" lists style names (strings), found \(x.kindName); ignored", at: x.position.located(in: file))
                    continue
                }
                written.append((s, x.position.located(in: file)))
            }
        } else {
            ctx.diagnostics.warning("an inline \"style\" object is not resolved (name a property file of the styles folder instead); shown as written", at: st.position.located(in: file))
            return nil
        }
        var names: [String] = []
        for (s, at) in written {
            if lib.hasStyle(s) {
                names.append(s)
            } else {
                ctx.diagnostics.warning("no style '\(TextEscape.escaped(s))' in the styles folders\(DidYouMean.hint(s, among: lib.names)); not applied", at: at)
            }
        }
        return names.isEmpty ? nil : names
    }

    func nodeStyle(for c: Component, registration reg: ComponentRegistration?, ctx: ResolutionContext, reported: inout Set<NodeStyleKey>) -> NodeStyle? {
        guard let names = styleNames(c, registration: reg, ctx: ctx) else { return nil }
        let type = reg?.type ?? c.type
        let key = NodeStyleKey(names: names, type: type, context: deviceContext)
        let entry: (NodeStyle, Diagnostics)
        if let e = styles.nodeStyles[key] {
            entry = e
        } else {
            let r = styleCache.resolve(names: names, context: deviceContext, schema: styleSchema(reg))
            var origins: [NodeStyle.Origin] = []
            origins.reserveCapacity(r.values.count)
            func line(_ l: SourceLocation) -> String { "\(l.file):\(l.line)" }
            for (k, v) in r.values { origins.append(.init(key: k, from: line(v.from), overrode: v.overrode.map(line))) }
            let id = styles.nodeStyles.count + 1
            entry = (NodeStyle(names: names, values: r.json, line: r.compactLine, origins: origins, id: id), r.diagnostics)
            styles.nodeStyles[key] = entry
        }
        if !entry.1.isEmpty, reported.insert(key).inserted { ctx.diagnostics.append(contentsOf: entry.1) }
        return entry.0
    }

    /// A component type's declared style schema (`options.style`), nil when it declares none.
    func styleSchema(_ reg: ComponentRegistration?) -> StyleSchema? {
        guard let reg, let types = reg.styleTypes else { return nil }
        if let s = styles.schemas[reg.type] { return s }
        var o = OrderedDictionary<String, StyleType>()
        for (k, t) in types { if let st = StyleType(rawValue: t) { o[k] = st } }
        let schema = StyleSchema(o, owner: reg.type, strict: !reg.openStyle)
        styles.schemas[reg.type] = schema
        return schema
    }
}

extension PluginEngine {
    /// `options.style`: a table of key → style type name (`{ title_color = "color" }`).
    static func parseStyleTypes(_ v: JSONValue) -> Result<[(key: String, type: String)], LuaHostError> {
        guard case .object(let o) = v else {
            return .failure(LuaHostError("options.style maps style keys to type names, found \(v.kindName)"))
        }
        let names = StyleType.allCases.map(\.rawValue)
        var out: [(key: String, type: String)] = []
        for (k, x) in o {
            guard case .string(let t) = x, StyleType(rawValue: t) != nil else {
                let found: String
                if case .string(let t) = x { found = "'\(TextEscape.escaped(t))'\(DidYouMean.hint(t, among: names))" } else { found = x.kindName }
                return .failure(LuaHostError("options.style.\(k): a style type (\(names.joined(separator: ", "))), found \(found)"))
            }
            out.append((k, t))
        }
        return .success(out.sorted { $0.key < $1.key })
    }
}

extension Workspace {
    /// Resolves a screen without the workspace's caches (a patched screen: the file's name but
    /// other nodes), with the device context and styles as `resolve`.
    public func resolveUncached(
        _ screen: Screen, check: ScreenCheck, user: UserProfile, explain: Bool = false, params: [String: String] = [:]
    ) -> Resolution {
        let ctx = ResolutionContext(user: user, screenID: screen.id, explain: explain, params: params)
        prepareStyles(ctx)
        return Resolver(factory: factory, screen: screen, check: check).resolve(for: user, context: ctx)
    }
}

extension Workspace {
    /// The attribute names the device context gives rules (`device`, `device.idiom`, …).
    public var deviceAttributeNames: Set<String> {
        deviceAttributesActive ? Set(Workspace.flatAttributes(deviceContext.attributes).keys) : []
    }
}
