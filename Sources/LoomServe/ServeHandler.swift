import Foundation
import LoomCommands
import LoomCore
import LoomLayout
import LoomNavigation
import LoomWorkspace
import LoomRender
import LoomStyles
import LoomText
import OrderedCollections

/// What a `host-serve` worker does for one request, with its own workspace: the same
/// resolution and JSON as `host run --format json` (docs/serve.md). The request's inputs are
/// read into `ServeInputs` (structured: profile name, attributes with their JSON types, `now`,
/// params, device), and one function, `screen`, runs the pipeline for them: the place where a
/// `ScreenRequest` (LoomCommands) takes over once every command goes through it.
public enum ServeHandler {
    /// What a screen request asks for, read from its query string and body.
    public struct ServeInputs {
        public var profile: String?
        /// The body's `user` attributes, in order, with their JSON types.
        public var attributes: [(key: String, value: JSONValue)] = []
        public var now: String?
        public var params: [String: String] = [:]
        /// The body's `"data"`: values by data source name (docs/data.md).
        public var data: [String: DataValue] = [:]
        /// The body's `"state"`: starting values of the screen's state (docs/data.md, "State").
        public var state: [String: ScreenState.Input] = [:]
        public var device: DeviceContext?
        public var explain = false
        public var graph = false
        public var svg = false
        /// Inputs that could not be read (a device context that does not parse): a 422, once
        /// the screen is found.
        public var problems: [Diagnostic] = []
    }

    public static func handle(_ ws: Workspace, _ req: APIRequest) -> APIResponse {
        // Messages name this surface's inputs (`param.id=VALUE`, not `--param id=VALUE`). Each
        // request has the whole total-time budget (--lua-total-time-limit) to itself, but no more
        // than the time its deadline (--request-timeout) leaves (PluginHost.withRequestBudget).
        InputSyntax.run(.http) {
            ws.pluginHost.withRequestBudget(deadline: Deadline.current) { answer(ws, req) }
        }
    }

    static func answer(_ ws: Workspace, _ req: APIRequest) -> APIResponse {
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
            return screen(id, req.kind, inputs(req), in: ws)
        }
    }

    /// `GET|POST /v1/screens/{id}`, `/v1/graph/{id}` and `/v1/render/{id}`: the request's
    /// inputs into a `ScreenRequest`, through the one pipeline (`ScreenPipeline.resolve`, as
    /// every command), the result into a response. What stays here is HTTP's: the status codes.
    static func screen(_ id: String, _ kind: APIRequest.Kind, _ inputs: ServeInputs, in ws: Workspace) -> APIResponse {
        guard let file = ws.screenFiles()[id] else {
            let ids = Array(ws.screenFiles().keys)
            return .problem(404, "Unknown screen", detail: "no screen '\(id)' in \(ws.project.screensDir)\(DidYouMean.hint(id, among: ids))")
        }
        if !inputs.problems.isEmpty {
            return .problem(422, "Invalid request", detail: inputs.problems.map(\.description).joined(separator: "; "), diagnostics: inputs.problems)
        }
        let user = UserSelection(profile: inputs.profile, attributes: inputs.attributes.map { .init(key: $0.key, value: $0.value) }, now: inputs.now)
        // A user that cannot be made is the request's fault (422), not the screen's.
        let profile: UserProfile
        switch user.user(in: ws.users) {
        case .success(let p): profile = p
        case .failure(let d): return .problem(422, "Invalid user", detail: d.message, diagnostics: [d])
        }
        // The worker's workspace serves one request at a time: the device is this request's.
        defer { ws.useDevice(nil) }
        ws.useDevice(inputs.device)
        let load = ws.loadDiagnostics
        if load.hasErrors {
            return .problem(500, "The project has errors", detail: "the plugins or project files have errors; see diagnostics", diagnostics: load.sorted)
        }
        // A data-fed screen given data is expanded with it (the file's own expansion may lack it).
        // (The same choice as the pipeline's: this preparation is the one it resolves.)
        let perRequest = ScreenPipeline.expandsForRequest(file, data: inputs.data, state: inputs.state, params: inputs.params, in: ws)
        let loaded = perRequest
            ? ScreenPipeline.prepare(file: file, data: DataRequest(data: inputs.data, params: inputs.params, user: profile, state: inputs.state), in: ws)
            : ScreenPipeline.prepare(file: file, in: ws)
        guard let parsed = loaded.prepared?.screen else {
            return .problem(500, "The screen has errors", detail: "screen '\(id)' cannot be parsed", diagnostics: loaded.diagnostics.sorted)
        }
        if case .graph = kind {
            // The graph from this screen (a request without `.tree` explores from the entry).
            let graph = ws.navigationGraph(from: parsed, user: profile)
            if inputs.svg {
                switch Graphviz.svg(fromDOT: graph.graph.dot()) {
                case .success(let svg): return APIResponse(status: 200, body: svg, contentType: "image/svg+xml")
                case .failure(let d): return .problem(501, "No SVG", detail: d.message, diagnostics: [d])
                }
            }
            return APIResponse(status: 200, body: graph.json.serialized(pretty: true) + "\n")
        }
        if case .render = kind {
            // As `host render` makes its picture (RenderLayout); laid out on the default device
            // when the request names none.
            var request = RenderLayout.request(file, user: user, device: inputs.device, showHidden: false, params: inputs.params)
            request.profile = profile  // made once, above
            // Drawn with the request's data and state, from the screen prepared above (its
            // providers are not called again).
            request.data = inputs.data
            request.state = inputs.state
            return wireframe(RenderLayout.make(request, prepared: loaded, in: ws))
        }
        var compute: ScreenRequest.Compute = [.tree, .inputNotes]
        if inputs.explain { compute.insert(.explain) }
        // The graph is explored only when asked for (it costs more than the resolution).
        if inputs.graph { compute.insert(.graph) }
        // The user made above (to answer 422 for one that cannot be made) is the request's:
        // the pipeline does not make it again.
        var request = ScreenRequest(screen: file, user: user, profile: profile, params: inputs.params,
                                    device: inputs.device, compute: compute)
        request.data = inputs.data
        request.state = inputs.state
        // The screen prepared above is the one resolved: a data-fed screen is expanded, and
        // its Lua data providers called, once per request.
        let result = ScreenPipeline.resolve(request, prepared: loaded, in: ws)
        if let failure = result.failure {
            return .problem(500, "The screen has errors", detail: failure.errors.first?.message ?? "screen '\(id)' cannot be resolved", diagnostics: result.diagnostics.sorted)
        }
        // A screen that fails closed still answers 200: what could be resolved, plus diagnostics.
        // Kept by the response cache only when the answer is a function of the request and the
        // project's generation alone (ResponseCache): the screen is the workspace's own parse (not
        // expanded for this request: no file read, no data provider called), and no error (a
        // rule stopped by its time budget depends on the machine's load, not on the request).
        return APIResponse(status: 200, body: result.rendered(.json, style: Style(color: false)),
                           cacheable: !perRequest && !result.diagnostics.hasErrors)
    }

    /// `GET /v1/render/{id}`: the resolved screen laid out for the request's device and drawn
    /// as `host render` draws it (an SVG wireframe).
    static func wireframe(_ made: Result<RenderLayout, RenderLayout.Stopped>) -> APIResponse {
        let layout: RenderLayout
        switch made {
        case .success(let l): layout = l
        case .failure(let stopped):
            let d = stopped.diagnostics.errors.first
            if d?.message.contains("needs a font") == true { return .problem(501, "No fonts", detail: d!.message) }
            return .problem(500, "The screen has errors", detail: d?.message ?? "the screen cannot be laid out", diagnostics: stopped.diagnostics.sorted)
        }
        let picture = layout.picture(RenderOptions(title: layout.title))
        if let e = picture.errors.first { return .problem(422, "Picture not drawn", detail: e.message) }
        return APIResponse(status: 200, body: picture.text, contentType: "image/svg+xml")
    }

    /// A screen request's inputs: `profile`, `now`, `locale`, `param.NAME`, `device`, `orientation`,
    /// `traits`, `text_size`, `explain`, `graph`, `format` from the query; the body's `profile`, `now`,
    /// `params` and device keys win over the query's, and its `user` attributes are kept with
    /// their JSON types.
    static func inputs(_ req: APIRequest) -> ServeInputs {
        var i = ServeInputs()
        i.profile = req.query["profile"]
        i.now = req.query["now"]
        let yes = ["1", "true", "yes"]
        i.explain = yes.contains(req.query["explain"] ?? "")
        i.graph = yes.contains(req.query["graph"] ?? "")
        i.svg = req.query["format"] == "svg"
        var device = (req.query["device"], req.query["orientation"], req.query["traits"])
        let textSize = req.query["text_size"]
        if let body = req.body {
            if let p = body.profile { i.profile = p }
            if let n = body.now { i.now = n }
            for (k, v) in body.params { i.params[k] = v }
            i.data = body.data
            i.state = body.state
            device = (body.device ?? device.0, body.orientation ?? device.1, body.traits ?? device.2)
            i.attributes = body.attributes.map { ($0.key, $0.value) }
        }
        for (k, v) in req.query where k.hasPrefix("param.") { i.params[String(k.dropFirst(6))] = v }
        // `?locale=` (or the body's "locale", which wins): the `locale` user attribute the
        // screen's strings and direction follow (docs/localization.md).
        if let l = req.body?.locale ?? req.query["locale"] {
            if StringCatalog.isTag(l) {
                i.attributes.append(("locale", .string(l)))
            } else {
                i.problems.append(.error("locale '\(TextEscape.escaped(l))' is not a locale tag such as nb-NO"))
            }
        }
        // `state.NAME=VALUE` in the query (read as the declared type, as --state), the body's winning.
        for (k, v) in req.query where k.hasPrefix("state.") && i.state[String(k.dropFirst(6))] == nil { i.state[String(k.dropFirst(6))] = .text(v) }
        if device.0 != nil || device.1 != nil || device.2 != nil || textSize != nil {
            switch DeviceContext.parse(device: device.0, orientation: device.1, traits: device.2, textSize: textSize) {
            case .success(let c): i.device = c
            case .failure(let d): i.problems.append(d)
            }
        }
        return i
    }
}
