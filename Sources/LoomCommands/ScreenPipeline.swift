import LoomCore
import LoomDiff
import LoomLayout
import LoomNavigation
import LoomWorkspace
import LoomStyles
import LoomText

/// The one place a screen request is carried out: locate the screen, pick the user, parse,
/// patch, resolve, then only what the request asks (graph, layout, notes). Every command and
/// the server go through it; everything that goes wrong is a diagnostic in the result, never
/// printed here and never an exit.
public enum ScreenPipeline {
    /// Carries out `request` in `ws` (whose device becomes the request's). When the screen,
    /// the user, the screen's syntax, a patch or the fonts cannot be used, the result's `failure`
    /// says why and nothing else in it is meaningful (its `diagnostics` hold everything found
    /// until then, the failure included).
    ///
    /// `prepared`: the screen the caller has prepared already for this very request (`host
    /// serve` prepares it to answer a screen that does not parse with its own status), used as
    /// is: a data-fed screen is expanded, and its Lua data providers called, once per request.
    public static func resolve(_ request: ScreenRequest, prepared given: Preparation? = nil, in ws: Workspace) -> ScreenResult {
        ws.useDevice(request.device)
        let compute = request.compute
        guard compute.contains(.tree) else { return exploreGraph(request, in: ws) }
        var result = ScreenResult(explain: compute.contains(.explain))
        // Styles apply to a resolved tree: their load problems are reported with it.
        var diagnostics = ws.loadDiagnostics
        diagnostics.append(contentsOf: ws.styleLoadDiagnostics)
        func stopped(_ why: Diagnostics) -> ScreenResult {
            result.diagnostics = diagnostics
            result.failure = why
            return result
        }
        func stopped(_ why: Diagnostic) -> ScreenResult {
            diagnostics.append(why)
            return stopped(Diagnostics([why]))
        }
        guard let screen = request.screen else {
            return stopped(.error("no screen given: name a screen file or a screen id"))
        }
        // A clients.json with errors: no tree at all rather than one no client's limits were
        // applied to (host run and host render printed it, exiting 1, before 2026-11-28).
        if !ws.clientsErrors.items.isEmpty { return stopped(ws.clientsErrors) }
        // Located before the user is made, parsed after: a missing screen is the error printed
        // when both are wrong, a profile typo when the screen is found but does not parse.
        let located: String
        switch ws.locateScreen(screen) {
        case .success(let f): located = f
        case .failure(let d): return stopped(d)
        }
        let profile: UserProfile
        switch user(of: request, in: ws) {
        case .success(let p): profile = p
        case .failure(let d): return stopped(d)
        }
        result.profile = profile
        // A data-fed screen (docs/data.md) given data or params is expanded for this request
        // alone, and resolved without the file's caches.
        let fed = expandsForRequest(located, data: request.data, state: request.state, params: request.params, in: ws)
        let preparation = given ?? (fed
            ? prepare(file: located, data: DataRequest(data: request.data, params: request.params, user: profile, state: request.state), in: ws)
            : prepare(file: located, in: ws))
        diagnostics.append(contentsOf: preparation.diagnostics)
        guard var prepared = preparation.prepared else { return stopped(preparation.failure ?? preparation.diagnostics) }
        let explain = compute.contains(.explain)
        // Patches apply in order, each all or nothing; any error stops before resolving.
        var before: JSONValue?
        if !request.patches.isEmpty {
            before = resolution(of: prepared, request: ScreenRequest(screen: located, device: request.device), user: profile, in: ws)
                .tree.map { TreeOutput.json($0, explain: false) }
            let patched = patch(prepared, with: request.patches, in: ws)
            diagnostics.append(contentsOf: patched.diagnostics)
            guard let p = patched.prepared else { return stopped(patched.failure ?? patched.diagnostics) }
            prepared = p
        }
        let parsed = prepared.screen
        let resolution = resolution(of: prepared, request: request, user: profile, in: ws)
        diagnostics.append(contentsOf: resolution.diagnostics)
        result.resolution = resolution
        if compute.contains(.graph) {
            let graph = ws.navigationGraph(from: parsed, user: profile)
            diagnostics.append(contentsOf: graph.diagnostics)
            result.graph = graph
        }
        result.describe(parsed)
        if !request.patches.isEmpty {
            // Compared without --explain's hidden nodes: what the user saw, then sees.
            let after = explain ? self.resolution(of: prepared, request: ScreenRequest(screen: located, device: request.device), user: profile, in: ws)
                                    .tree.map { TreeOutput.json($0, explain: false) }
                                : resolution.tree.map { TreeOutput.json($0, explain: false) }
            result.changes = TreeDiffer(old: before, new: after).changes
        }
        if compute.contains(.inputNotes) {
            diagnostics.append(contentsOf: InputNotes.diagnostics(file: located, in: ws, profile: profile))
        }
        if compute.contains(.layout) {
            let engine: LayoutEngine
            switch layoutEngine(in: ws) {
            case .success(let e): engine = e
            case .failure(let e):
                return stopped(.error("cannot lay out: the layout measures text with FreeType and needs a font: \(e.message)"))
            }
            let context = request.device ?? .standard
            let out = engine.layout(resolved: resolution.tree, on: context, showHidden: compute.contains(.layoutHidden),
                                    rightToLeft: isRightToLeft(profile, in: ws))
            diagnostics.append(contentsOf: out.diagnostics)
            result.layout = out.result
            result.layoutContext = context
        }
        result.diagnostics = diagnostics
        return result
    }

    /// Whether a request for the screen file `file` expands it anew for itself (docs/data.md):
    /// given data or state, parameters for a data-fed screen, or a screen whose data a Lua
    /// provider gives per user.
    public static func expandsForRequest(_ file: String, data: [String: DataValue], state: [String: ScreenState.Input],
                                         params: [String: String], in ws: Workspace) -> Bool {
        !data.isEmpty || !state.isEmpty || (!params.isEmpty && ws.isDataFed(file)) || ws.hasProvidedData(file)
    }

    // MARK: Stages
    //
    // `resolve(_:in:)` is these stages in order; callers that resolve one screen many times
    // (`host test`'s sessions, `host check`'s matrix, `host eval` and `host matrix`) run them
    // separately, so that a screen is located and parsed once and only the resolution repeats.

    /// Prepare: locate `screen` (a file or a screen id, as a request names it), parse and check
    /// it (once per workspace: the workspace keeps what it parsed), then apply `patches` in order.
    public static func prepare(_ screen: String, patches: [String] = [], in ws: Workspace) -> Preparation {
        switch ws.locateScreen(screen) {
        case .success(let file):
            let loaded = prepare(file: file, in: ws)
            guard let prepared = loaded.prepared, !patches.isEmpty else { return loaded }
            var out = patch(prepared, with: patches, in: ws)
            var all = loaded.diagnostics
            all.append(contentsOf: out.diagnostics)
            out.diagnostics = all
            return out
        case .failure(let d):
            return Preparation(prepared: nil, diagnostics: Diagnostics([d]), failure: Diagnostics([d]))
        }
    }

    /// Prepare a located screen file: parsed and checked (warnings and errors in the
    /// diagnostics); no screen when it does not parse.
    public static func prepare(file: String, in ws: Workspace) -> Preparation {
        let loaded = ws.screen(file: file)
        guard let screen = loaded.screen, let check = loaded.check else {
            return Preparation(prepared: nil, diagnostics: loaded.diagnostics, failure: loaded.diagnostics)
        }
        return Preparation(prepared: PreparedScreen(file: file, screen: screen, check: check, patched: false), diagnostics: loaded.diagnostics)
    }

    /// A data-fed screen expanded with the request's data, params and user (docs/data.md):
    /// its own screen, resolved without the file's caches (as a patched one).
    public static func prepare(file: String, data: DataRequest, in ws: Workspace) -> Preparation {
        let loaded = ws.screen(file: file, request: data)
        guard let screen = loaded.screen, let check = loaded.check else {
            return Preparation(prepared: nil, diagnostics: loaded.diagnostics, failure: loaded.diagnostics)
        }
        return Preparation(prepared: PreparedScreen(file: file, screen: screen, check: check, patched: true), diagnostics: loaded.diagnostics)
    }

    /// Patches `prepared` with the patch files in order, each all or nothing (docs/changes.md);
    /// the first that cannot be read or applied stops with its diagnostics. The patched screen
    /// resolves without the file's caches (its nodes are not the file's).
    public static func patch(_ prepared: PreparedScreen, with patches: [String], in ws: Workspace) -> Preparation {
        var diagnostics = Diagnostics()
        var current = prepared
        for path in patches {
            let (patch, pd) = ScreenPatch.load(path, limits: ws.project.fileLimits)
            diagnostics.append(contentsOf: pd)
            guard let patch else { return Preparation(prepared: nil, diagnostics: diagnostics, failure: pd) }
            let (patched, ad) = patch.apply(to: current.screen, check: current.check, factory: ws.factory)
            diagnostics.append(contentsOf: ad)
            guard let patched else { return Preparation(prepared: nil, diagnostics: diagnostics, failure: ad) }
            current = PreparedScreen(file: current.file, screen: patched.screen, check: patched.check, patched: true)
        }
        return Preparation(prepared: current, diagnostics: diagnostics)
    }

    /// A screen prepared in place of its file's (`s:mutate` in a scenario: the scenario's patch
    /// applied to the current screen), resolved like a patched one.
    public static func replacing(_ prepared: PreparedScreen, screen: Screen, check: ScreenCheck) -> PreparedScreen {
        PreparedScreen(file: prepared.file, screen: screen, check: check, patched: true)
    }

    /// Resolve: `prepared` for `user`, with the request's parameters, device and `.explain`
    /// (the rest of its `compute` is the caller's). `user` is the user the request names,
    /// already made (`request.user.user(in:)`, or `request.profile`). The device becomes the
    /// workspace's.
    public static func resolution(of prepared: PreparedScreen, request: ScreenRequest, user: UserProfile, in ws: Workspace) -> Resolution {
        ws.useDevice(request.device)
        let explain = request.compute.contains(.explain)
        // A patched screen has the file's name but other nodes: it must not share the file's cache.
        var r = prepared.patched
            ? ws.resolveUncached(prepared.screen, check: prepared.check, user: user, explain: explain, params: request.params)
            : ws.resolve(prepared.screen, check: prepared.check, user: user, explain: explain, params: request.params)
        // Strings resolve for the user's locale after the (locale-independent, cached) tree is
        // made; without strings and without a locale asked for, nothing changes.
        Localizer(catalog: ws.strings, user: user)?.apply(&r)
        return r
    }

    /// The locale `user` asks for (the `locale` attribute: `--locale`, `?locale=`, a profile's;
    /// else loom.json's `default_locale` when the project has strings), nil when none.
    public static func locale(of user: UserProfile, in ws: Workspace) -> String? {
        Localizer.locale(of: user, catalog: ws.strings)
    }

    /// Whether `user`'s locale is right to left (its layout mirrors: docs/localization.md).
    public static func isRightToLeft(_ user: UserProfile, in ws: Workspace) -> Bool {
        locale(of: user, in: ws).map(LocaleDirection.isRightToLeft) ?? false
    }

    /// The user a request names: its `profile` when the caller made it, else made from its
    /// `user` selection (an unknown profile or a bad `now` is the failure).
    public static func user(of request: ScreenRequest, in ws: Workspace) -> Result<UserProfile, Diagnostic> {
        if let given = request.profile { return .success(given) }
        return request.user.user(in: ws.users)
    }

    /// Lay out: the engine every layout of a resolved tree goes through, or why there is none
    /// (the layout measures text with FreeType and needs a font).
    public static func layoutEngine(in ws: Workspace) -> Result<LayoutEngine, FontError> {
        FontLibrary.shared.map {
            var engine = LayoutEngine(factory: ws.factory, measurer: $0)
            // A wrong colour is reported by `host check` (CheckTextSizes.screenBackground).
            if let bg = ws.project.screenBackground.flatMap({ RGBA.hex($0.text) }) { engine.screenBackground = bg }
            return engine
        }
    }

    /// The text metrics the layout measures with (pictures drawn from a layout measure their
    /// text with the same fonts).
    public static func textMeasurer() -> Result<FontLibrary, FontError> {
        FontLibrary.shared
    }

    /// A request without `.tree`: the graph the user can walk, explored from the project's entry,
    /// or from the screen when the project declares none. A screen that does not parse leaves
    /// the exploration to the entry (its errors are in the result).
    static func exploreGraph(_ request: ScreenRequest, in ws: Workspace) -> ScreenResult {
        var result = ScreenResult(explain: false)
        var diagnostics = ws.loadDiagnostics
        func stopped(_ why: Diagnostic) -> ScreenResult {
            diagnostics.append(why)
            result.diagnostics = diagnostics
            result.failure = Diagnostics([why])
            return result
        }
        var start: Screen?
        if let screen = request.screen {
            switch ws.locateScreen(screen) {
            case .success(let file):
                let loaded = ws.screen(file: file)
                diagnostics.append(contentsOf: loaded.diagnostics)
                start = loaded.screen
            case .failure(let d): return stopped(d)
            }
        }
        let profile: UserProfile
        switch user(of: request, in: ws) {
        case .success(let p): profile = p
        case .failure(let d): return stopped(d)
        }
        result.profile = profile
        let nav = ws.navigationGraph(from: start, user: profile)
        diagnostics.append(contentsOf: nav.diagnostics)
        result.graph = nav
        result.diagnostics = diagnostics
        return result
    }
}

/// A screen ready to resolve: located, parsed, checked and patched (`ScreenPipeline.prepare`).
/// A class: a `host test` session hands it from its open target to each resolution it keeps,
/// one reference instead of the screen's and the check's many.
public final class PreparedScreen {
    /// The screen file (a patched screen keeps its file's path).
    public let file: String
    public let screen: Screen
    /// The static check the resolver needs.
    public let check: ScreenCheck
    /// Whether its nodes are not the file's (patches changed it, or it was expanded with a
    /// request's data or state): then it resolves without the file's caches.
    public let patched: Bool

    public init(file: String, screen: Screen, check: ScreenCheck, patched: Bool) {
        self.file = file
        self.screen = screen
        self.check = check
        self.patched = patched
    }

    /// The resolver of the screen, compiled once and kept by whoever resolves it many times
    /// (`host eval`, `host matrix`: one per screen and worker): the workspace's for a file's
    /// screen (sharing the file's cache of resolved components and items and its rule
    /// program), its own for a patched one.
    public func resolver(in ws: Workspace) -> Resolver {
        patched ? Resolver(factory: ws.factory, screen: screen, check: check) : ws.resolver(screen, check: check)
    }
}

/// What `ScreenPipeline.prepare` gives: the prepared screen, or nil with `failure` saying why;
/// `diagnostics` holds everything found (the failure included).
public struct Preparation {
    public var prepared: PreparedScreen?
    public var diagnostics: Diagnostics
    public var failure: Diagnostics?

    public init(prepared: PreparedScreen?, diagnostics: Diagnostics, failure: Diagnostics? = nil) {
        self.prepared = prepared
        self.diagnostics = diagnostics
        self.failure = failure
    }
}
