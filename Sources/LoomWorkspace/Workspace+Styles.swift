import LoomCore
import LoomStyles
import OrderedCollections

/// A workspace's styles: the library (loaded once), the device context resolutions use, each
/// component type's style schema and the styles already turned into node styles.
public final class WorkspaceStyles {
    var cache: StyleCache?
    /// Whether the library has any property file (read once it is loaded).
    var any = false
    var loadDiagnostics = Diagnostics()
    /// The device, orientation and size classes screens are resolved for (`--device`, …).
    public var context: DeviceContext = .standard {
        didSet {
            guard context != oldValue else { return }
            flat = nil
            suffix = nil
            lastKey = nil
            otherContexts[oldValue] = nodeStyles
            nodeStyles = otherContexts.removeValue(forKey: context) ?? NodeStyles()
        }
    }
    /// `context`'s attributes as rules read them (made once per context).
    var flat: [String: JSONValue]?
    /// `Workspace.styleCacheSuffix` for `context` (made once per context).
    var suffix: String?
    /// The last screen file's resolution cache key with `suffix` (no string made per resolution).
    var lastKey: (file: String, key: String)?
    /// Whether a device was chosen (`--device`, `--orientation`, `--traits`, `t:open` options).
    var chosen = false
    var schemas: [String: StyleSchema?] = [:]
    /// Node styles of the current device context by names and type (a 1,000-component screen
    /// with a few dozen distinct styles converts a few dozen); other contexts' set aside.
    @exclusivity(unchecked) var nodeStyles = NodeStyles()
    var otherContexts: [DeviceContext: NodeStyles] = [:]
    /// The most components one resolution styled (what the next reserves).
    var styledNodes = 0
    /// The last `NodeStyle.id` given (unique per workspace, whatever the context).
    var lastID = 0

    struct NodeStyles {
        /// A component naming one style (or none, styled by its type): no list to make.
        var byName: [SingleKey: Entry] = [:]
        var byNames: [NodeStyleKey: Entry] = [:]
    }

    struct SingleKey: Hashable {
        var name: String
        var type: String
    }

    struct NodeStyleKey: Hashable {
        var names: [String]
        var type: String
    }

    struct Entry {
        var style: NodeStyle
        var diagnostics: Diagnostics
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
        // None chosen before and none now: the context is the default already (only `useDevice`
        // and `deviceContext` set it, and both mark it chosen unless it is the default).
        if context == nil, !styles.chosen { return }
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
        let pluginFolders = pluginHost.plugins.map(\.info.folder)
        let folders = [project.stylesDir] + pluginFolders.map { Project.join($0, StyleFolders.defaultFolder) }
        let (lib, d) = StyleLibrary.load(folders: folders, limits: project.fileLimits)
        let c = StyleCache(library: lib)
        styles.cache = c
        styles.any = !lib.files.isEmpty
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
    public var hasStyles: Bool {
        if styles.cache == nil { _ = styleCache }
        return styles.any
    }

    /// Distinguishes the resolution caches of each device context (empty without styles).
    var styleCacheSuffix: String {
        guard hasStyles else { return "" }
        if let s = styles.suffix { return s }
        let s = "\u{1}" + deviceContext.summary
        styles.suffix = s
        return s
    }

    /// `file`'s resolution cache key for the device context (`file + styleCacheSuffix`), kept
    /// for the last file: resolving a cached tree again makes no string.
    func styleCacheKey(_ file: String) -> String {
        guard hasStyles else { return file }
        if let k = styles.lastKey, k.file == file { return k.key }
        let key = file + styleCacheSuffix
        styles.lastKey = (file, key)
        return key
    }

    /// Gives a resolution the device context: its attributes for rules and, when the project
    /// has styles, each component's resolved style (diagnostics reported once per resolution).
    func prepareStyles(_ env: inout ResolutionEnvironment) {
        if deviceAttributesActive {
            if styles.flat == nil { styles.flat = Workspace.flatAttributes(deviceContext.attributes) }
            env.deviceAttributes = styles.flat!
        }
        guard hasStyles else { return }
        var reported: Set<Int> = []
        env.styleFor = { [unowned self] c, reg, ctx in
            // As many places as the workspace's largest styled resolution so far (no regrowing;
            // reserved by the first component styled, not by a resolution that reuses its tree).
            let n = ctx.nodeStyles.count
            if n == 0 { ctx.nodeStyles.reserveCapacity(self.styles.styledNodes) }
            if n >= self.styles.styledNodes { self.styles.styledNodes = n + 1 }
            return self.nodeStyle(for: c, registration: reg, ctx: ctx, reported: &reported)
        }
    }

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

    func nodeStyle(for c: Component, registration reg: ComponentRegistration?, ctx: ResolutionContext, reported: inout Set<Int>) -> NodeStyle? {
        let type = reg?.type ?? c.type
        // The common case first: one name, already resolved for this type and context.
        if let st = c.style, let s = st.string, let e = styles.nodeStyles.byName[WorkspaceStyles.SingleKey(name: s, type: type)] {
            return reportedStyle(e, ctx: ctx, reported: &reported)
        }
        // Then one existing name (or none, and a style named after the type).
        let lib = styleCache.library
        var single: String?
        if let st = c.style {
            if let s = st.string, lib.hasStyle(s) { single = s }
        } else if lib.hasStyle(c.type) {
            single = c.type
        }
        if single == nil {
            guard let names = styleNames(c, registration: reg, ctx: ctx) else { return nil }
            if names.count == 1 { single = names[0] } else { return nodeStyle(names: names, type: type, registration: reg, ctx: ctx, reported: &reported) }
        }
        let name = single!
        let key = WorkspaceStyles.SingleKey(name: name, type: type)
        let entry: WorkspaceStyles.Entry
        if let e = styles.nodeStyles.byName[key] {
            entry = e
        } else {
            entry = makeNodeStyle(names: [name], registration: reg)
            styles.nodeStyles.byName[key] = entry
        }
        return reportedStyle(entry, ctx: ctx, reported: &reported)
    }

    private func nodeStyle(names: [String], type: String, registration reg: ComponentRegistration?, ctx: ResolutionContext, reported: inout Set<Int>) -> NodeStyle {
        let key = WorkspaceStyles.NodeStyleKey(names: names, type: type)
        let entry: WorkspaceStyles.Entry
        if let e = styles.nodeStyles.byNames[key] {
            entry = e
        } else {
            entry = makeNodeStyle(names: names, registration: reg)
            styles.nodeStyles.byNames[key] = entry
        }
        return reportedStyle(entry, ctx: ctx, reported: &reported)
    }

    /// The style, its diagnostics reported once per resolution.
    private func reportedStyle(_ entry: WorkspaceStyles.Entry, ctx: ResolutionContext, reported: inout Set<Int>) -> NodeStyle {
        if !entry.diagnostics.isEmpty, reported.insert(entry.style.id).inserted { ctx.diagnostics.append(contentsOf: entry.diagnostics) }
        return entry.style
    }

    /// `names` resolved for the device context and the component type's schema, as builders
    /// and output see it (`NodeStyle.id`: the next of the workspace).
    private func makeNodeStyle(names: [String], registration reg: ComponentRegistration?) -> WorkspaceStyles.Entry {
        let r = styleCache.resolve(names: names, context: deviceContext, schema: styleSchema(reg))
        styles.lastID += 1
        let values = r.values
        let style = NodeStyle(names: names, values: r.json, id: styles.lastID, line: { r.compactLine }, origins: {
            var origins: [NodeStyle.Origin] = []
            origins.reserveCapacity(values.count)
            func line(_ l: SourceLocation) -> String { "\(l.file):\(l.line)" }
            for (k, v) in values { origins.append(.init(key: k, from: line(v.from), overrode: v.overrode.map(line))) }
            return origins
        })
        return .init(style: style, diagnostics: r.diagnostics)
    }

    /// A component type's declared style schema (`options.style`), nil when it declares none.
    public func styleSchema(_ reg: ComponentRegistration?) -> StyleSchema? {
        guard let reg, let types = reg.styleTypes else { return nil }
        if let s = styles.schemas[reg.type] { return s }
        var o = OrderedDictionary<String, StyleType>()
        for (k, t) in types { if let st = StyleType(rawValue: t) { o[k] = st } }
        let schema = StyleSchema(o, owner: reg.type, strict: !reg.openStyle)
        styles.schemas[reg.type] = schema
        return schema
    }
}

extension Workspace {
    /// Resolves a screen without the workspace's caches (a patched screen: the file's name but
    /// other nodes), with the device context and styles as `resolve`.
    public func resolveUncached(
        _ screen: Screen, check: ScreenCheck, user: UserProfile, explain: Bool = false, params: [String: String] = [:]
    ) -> Resolution {
        let ctx = ResolutionContext(user: user, screenID: screen.id, explain: explain, params: params)
        prepareStyles(&ctx.environment)
        return Resolver(factory: factory, screen: screen, check: check).resolve(for: user, context: ctx)
    }
}

extension Workspace {
    /// The attribute names the device context gives rules (`device`, `device.idiom`, …).
    public var deviceAttributeNames: Set<String> {
        deviceAttributesActive ? Set(Workspace.flatAttributes(deviceContext.attributes).keys) : []
    }
}
