import Foundation
import LoomCore
import LoomLayout
import LoomWorkspace
import LoomRender
import LoomServe
import LoomStyles
import LoomText
import OrderedCollections

/// What a `host serve` worker does for one request, with its own workspace: the same
/// resolution and JSON as `host run --format json` (docs/serve.md).
enum ServeHandler {
    /// What a request asks for besides the user: its params and its device context.
    struct Extras {
        var params: [String: String] = [:]
        var device: DeviceContext?
    }

    static func handle(_ ws: Workspace, _ req: APIRequest) -> APIResponse {
        // Each request has the whole total-time budget (--lua-total-time-limit) to itself, but no
        // more than the time its deadline (--request-timeout) leaves (PluginHost.withRequestBudget).
        ws.pluginHost.withRequestBudget(deadline: Deadline.current) { handleInBudget(ws, req) }
    }

    private static func handleInBudget(_ ws: Workspace, _ req: APIRequest) -> APIResponse {
        switch req.kind {
        case .profiles:
            let names = ws.users.profiles.keys.map { JSONValue.string($0) }
            return APIResponse(status: 200, body: JSONValue.object(["profiles": .array(Array(names))]).serialized(pretty: true) + "\n")
        case .list:
            var list: [JSONValue] = []
            for (id, file) in ws.screenFiles().sorted(by: { $0.key < $1.key }) {
                let title = ws.screen(file: file).screen?.title ?? .null
                list.append(.object(["id": .string(id), "title": title, "file": .string(file)]))
            }
            // The screen the app starts on (loom.json's entry, through its flow), for clients' defaults.
            let entry = ws.flows().0.entryPoint(runningScreen: nil)?.screen
            return APIResponse(status: 200, body: JSONValue.object(["screens": .array(list), "entry": entry.map { .string($0) } ?? .null]).serialized(pretty: true) + "\n")
        case .screen(let id), .graph(let id), .render(let id):
            guard let file = ws.screenFiles()[id] else {
                let ids = Array(ws.screenFiles().keys)
                return .problem(404, "Unknown screen", detail: "no screen '\(id)' in \(ws.project.screensDir)\(DidYouMean.hint(id, among: ids))")
            }
            var profile: UserProfile
            var extras = Extras()
            switch user(req, ws, &extras) {
            case .success(let p): profile = p
            case .failure(let r): return r
            }
            // The worker's workspace serves one request at a time: the device is this request's.
            ws.useDevice(extras.device)
            defer { ws.useDevice(nil) }
            let load = ws.loadDiagnostics
            if load.hasErrors {
                return .problem(500, "The project has errors", detail: "the plugins or project files have errors; see diagnostics", diagnostics: load.sorted)
            }
            let loaded = ws.screen(file: file)
            guard let parsed = loaded.screen, let check = loaded.check else {
                return .problem(500, "The screen has errors", detail: "screen '\(id)' cannot be parsed", diagnostics: loaded.diagnostics.sorted)
            }
            if case .graph = req.kind {
                let graph = ws.navigationGraph(from: parsed, user: profile)
                if req.query["format"] == "svg" {
                    switch Graphviz.svg(fromDOT: graph.graph.dot()) {
                    case .success(let svg): return APIResponse(status: 200, body: svg, contentType: "image/svg+xml")
                    case .failure(let d): return .problem(501, "No SVG", detail: d.message, diagnostics: [d])
                    }
                }
                return APIResponse(status: 200, body: graph.json.serialized(pretty: true) + "\n")
            }
            var diagnostics = load
            diagnostics.append(contentsOf: loaded.diagnostics)
            let explain = ["1", "true", "yes"].contains(req.query["explain"] ?? "")
            let resolution = ws.resolve(parsed, check: check, user: profile, explain: explain, params: extras.params)
            diagnostics.append(contentsOf: resolution.diagnostics)
            if case .render = req.kind { return wireframe(ws, resolution, profile: profile, device: extras.device ?? .standard) }
            let withGraph = ["1", "true", "yes"].contains(req.query["graph"] ?? "")
            // The graph is explored only when asked for (it costs more than the resolution).
            let graph = withGraph ? ws.navigationGraph(from: parsed, user: profile) : nil
            if let graph { diagnostics.append(contentsOf: graph.diagnostics) }
            var report = ScreenReport(parsed, resolution: resolution, profile: profile, graph: graph, explain: explain,
                                      diagnostics: diagnostics)
            report.diagnostics.append(contentsOf: InputNotes.diagnostics(file, in: ws, profile: profile))
            // A screen that fails closed still answers 200: what could be resolved, plus diagnostics.
            return APIResponse(status: 200, body: report.rendered(.json, style: Style(color: false)))
        }
    }

    /// `GET /v1/render/{id}`: the resolved screen laid out for the request's device and drawn
    /// as `host render` draws it (an SVG wireframe).
    static func wireframe(_ ws: Workspace, _ resolution: Resolution, profile: UserProfile, device ctx: DeviceContext) -> APIResponse {
        let fonts: FontLibrary
        switch FontLibrary.shared {
        case .success(let f): fonts = f
        case .failure(let e): return .problem(501, "No fonts", detail: "the layout measures text with FreeType and needs a font: \(e.message)")
        }
        let result = LayoutEngine(factory: ws.factory, measurer: fonts).layout(resolved: resolution.tree, on: ctx).result
        // The title host render gives the picture.
        let title = "\(resolution.screen) · \(profile.name ?? "no user") · \(ctx.device.name) \(ctx.orientation.rawValue)"
        let picture = SVGRenderer(options: RenderOptions(title: title)).render(result)
        if let e = picture.errors.first { return .problem(422, "Picture not drawn", detail: e.message) }
        return APIResponse(status: 200, body: picture.text, contentType: "image/svg+xml")
    }

    /// The user of a request: `profile` (query or body), `user` attributes (body), `now`; the
    /// params and the device context go to `extras`.
    static func user(_ req: APIRequest, _ ws: Workspace, _ extras: inout Extras) -> Result<UserProfile, APIResponse> {
        var name = req.query["profile"]
        var now = req.query["now"]
        var device = (req.query["device"], req.query["orientation"], req.query["traits"])
        var problems: [Diagnostic] = []
        let body = req.body
        if let body {
            if let p = body.profile { name = p }
            if let n = body.now { now = n }
            for (k, v) in body.params { extras.params[k] = v }
            device = (body.device ?? device.0, body.orientation ?? device.1, body.traits ?? device.2)
        }
        for (k, v) in req.query where k.hasPrefix("param.") { extras.params[String(k.dropFirst(6))] = v }
        if device.0 != nil || device.1 != nil || device.2 != nil {
            switch DeviceContext.parse(device: device.0, orientation: device.1, traits: device.2) {
            case .success(let c): extras.device = c
            case .failure(let d): problems.append(d)
            }
        }
        if !problems.isEmpty {
            return .failure(.problem(422, "Invalid request", detail: problems.map(\.description).joined(separator: "; "), diagnostics: problems))
        }
        switch ws.users.user(named: name, context: [], now: now) {
        case .success(let p):
            // The body's attributes as they are (JSON values, any key): added to, or overriding,
            // the profile's; `now` stays the request's when it gives one.
            return .success(body.map { $0.applied(to: p, keepingNow: now != nil) } ?? p)
        case .failure(let d): return .failure(.problem(422, "Invalid user", detail: d.message, diagnostics: [d]))
        }
    }
}
