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
    public static func resolve(_ request: ScreenRequest, in ws: Workspace) -> ScreenResult {
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
        let file: String
        switch ws.locateScreen(screen) {
        case .success(let f): file = f
        case .failure(let d): return stopped(d)
        }
        let profile: UserProfile
        switch request.user.user(in: ws.users) {
        case .success(let p): profile = p
        case .failure(let d): return stopped(d)
        }
        result.profile = profile
        // A data-fed screen (docs/data.md) given data or params is expanded for this request
        // alone, and resolved without the file's caches.
        let fed = !request.data.isEmpty || ((!request.params.isEmpty && ws.isDataFed(file)) || ws.hasProvidedData(file))
        let loaded = fed ? ws.screen(file: file, request: DataRequest(data: request.data, params: request.params, user: profile)) : ws.screen(file: file)
        diagnostics.append(contentsOf: loaded.diagnostics)
        guard var parsed = loaded.screen, var check = loaded.check else { return stopped(loaded.diagnostics) }
        let explain = compute.contains(.explain)
        // Patches apply in order, each all or nothing; any error stops before resolving.
        var before: JSONValue?
        if !request.patches.isEmpty {
            before = ws.resolve(parsed, check: check, user: profile).tree.map { TreeOutput.json($0, explain: false) }
            for path in request.patches {
                let (patch, pd) = ScreenPatch.load(path, limits: ws.project.fileLimits)
                diagnostics.append(contentsOf: pd)
                guard let patch else { return stopped(pd) }
                let (patched, ad) = patch.apply(to: parsed, check: check, factory: ws.factory)
                diagnostics.append(contentsOf: ad)
                guard let patched else { return stopped(ad) }
                parsed = patched.screen
                check = patched.check
            }
        }
        // A patched screen has the file's name but other nodes: it must not share the file's cache.
        let resolution = request.patches.isEmpty && !fed
            ? ws.resolve(parsed, check: check, user: profile, explain: explain, params: request.params)
            : ws.resolveUncached(parsed, check: check, user: profile, explain: explain, params: request.params)
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
            let after = explain ? ws.resolveUncached(parsed, check: check, user: profile).tree.map { TreeOutput.json($0, explain: false) }
                                : resolution.tree.map { TreeOutput.json($0, explain: false) }
            result.changes = TreeDiffer(old: before, new: after).changes
        }
        if compute.contains(.inputNotes) {
            diagnostics.append(contentsOf: InputNotes.diagnostics(screen, in: ws, profile: profile))
        }
        if compute.contains(.layout) {
            let fonts: FontLibrary
            switch FontLibrary.shared {
            case .success(let f): fonts = f
            case .failure(let e):
                return stopped(.error("cannot lay out: the layout measures text with FreeType and needs a font: \(e.message)"))
            }
            let context = request.device ?? .standard
            let out = LayoutEngine(factory: ws.factory, measurer: fonts)
                .layout(resolved: resolution.tree, on: context, showHidden: compute.contains(.layoutHidden))
            diagnostics.append(contentsOf: out.diagnostics)
            result.layout = out.result
            result.layoutContext = context
        }
        result.diagnostics = diagnostics
        return result
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
        switch request.user.user(in: ws.users) {
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
