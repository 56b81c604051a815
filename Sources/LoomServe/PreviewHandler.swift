import Foundation
import LoomCommands
import LoomCore
import LoomNavigation
import LoomRender
import LoomWorkspace

/// `GET|POST /v1/preview/{id}?steps=…&link=…`: the clickable preview's screen (docs/serve.md,
/// "The preview as a prototype"). The user starts on screen `{id}`, opens `link` (a deep link)
/// if given, then takes `steps` (`movie:42,back`) through the same simulator as `host navigate`
/// (`NavigationReplay`): a step the user's screen does not offer (an action a rule hides from
/// them) stops the walk there, and the answer says which and why. The screen the user ends on
/// is laid out for the request's device as `host render` lays it out, and each node comes back
/// with its frame, content and styles (`PreviewNodes`) for the page to draw as HTML.
public enum PreviewHandler {
    /// More steps than this in one request are refused (422): each step resolves a screen.
    public static let maxSteps = 100
    /// A longer deep link is refused (422).
    public static let maxLinkBytes = 2048

    /// As `ServeHandler.handle`: messages in this surface's words, the request's time budget.
    public static func handle(_ ws: Workspace, _ req: APIRequest) -> APIResponse {
        InputSyntax.run(.http) {
            ws.pluginHost.withRequestBudget(deadline: Deadline.current) { answer(ws, req) }
        }
    }

    static func answer(_ ws: Workspace, _ req: APIRequest) -> APIResponse {
        guard case .screen(let id) = req.kind else { return .problem(404, "Not found", detail: "not a preview request") }
        guard let file = ws.screenFiles()[id] else {
            let ids = Array(ws.screenFiles().keys)
            return .problem(404, "Unknown screen", detail: "no screen '\(id)' in \(ws.project.screensDir)\(DidYouMean.hint(id, among: ids))")
        }
        let inputs = ServeHandler.inputs(req)
        var problems = inputs.problems
        let stepsText = req.query["steps"] ?? ""
        var steps: [Step] = []
        switch Step.parseList(stepsText) {
        case .success(let s): steps = s
        case .failure(let d): problems.append(.error("steps: " + d.message, at: d.location))
        }
        if steps.count > maxSteps {
            problems.append(.error("steps: \(steps.count) steps; at most \(maxSteps) are taken in one request"))
        }
        let link = req.query["link"].flatMap { $0.isEmpty ? nil : $0 }
        if let link, link.utf8.count > maxLinkBytes {
            problems.append(.error("link: \(link.utf8.count) bytes; at most \(maxLinkBytes)"))
        }
        if !problems.isEmpty {
            return .problem(422, "Invalid request", detail: problems.map(\.message).joined(separator: "; "), diagnostics: problems)
        }
        let user = UserSelection(profile: inputs.profile, attributes: inputs.attributes.map { .init(key: $0.key, value: $0.value) }, now: inputs.now)
        let profile: UserProfile
        switch user.user(in: ws.users) {
        case .success(let p): profile = p
        case .failure(let d): return .problem(422, "Invalid user", detail: d.message, diagnostics: [d])
        }
        defer { ws.useDevice(nil) }
        let load = ws.loadDiagnostics
        if load.hasErrors {
            return .problem(500, "The project has errors", detail: "the plugins or project files have errors; see diagnostics", diagnostics: load.sorted)
        }
        let start = ScreenRequest(screen: file, user: user, params: inputs.params, device: inputs.device, compute: [])
        let replay = NavigationReplay.replay(start, link: link, steps: steps.isEmpty ? nil : stepsText, in: ws)
        if let failure = replay.failure {
            return .problem(422, "Navigation cannot start", detail: failure.items.first?.message ?? "the navigation cannot start",
                            diagnostics: failure.sorted)
        }
        // What was asked and what was taken: a walk that stopped early stopped at the next
        // input, and NavigationReplay appends that input's diagnostic last.
        let inputsAsked = (link.map { [$0] } ?? []) + steps.map(\.description)
        var outcomes = replay.outcomes
        var stopped: (input: String, message: String)?
        if outcomes.count < inputsAsked.count {
            stopped = (inputsAsked[outcomes.count], replay.diagnostics.items.last?.message ?? "the step cannot be taken")
        }
        // A tap is on a button: a step is taken only where the user's screen shows that very
        // action. (The simulator, as `host navigate`, takes any step whose name the screen
        // offers: `play:4k` where only `play:trailer` is shown. Two users compared tap by tap
        // must not get a button the rules hide from one of them.)
        let startEntry = NavigationEntry(screen: replay.entry?.screen ?? id, flow: replay.entry?.flow, presentation: .start,
                                         params: inputs.params)
        let linkTaken = link != nil && !outcomes.isEmpty ? 1 : 0
        var from = linkTaken == 1 ? (outcomes[0].stack.top ?? startEntry) : startEntry
        for k in linkTaken..<outcomes.count {
            let step = steps[k - linkTaken]
            // `tap:ID` (a state action's button) is checked by the replay itself: the node must be shown.
            if !step.isBack && step.name != "tap" {
                let sites = ws.visibleActions(screenID: from.screen, user: profile, params: from.params)?.actions ?? []
                if !sites.contains(where: { Step(action: $0.action) == step }) {
                    outcomes.removeSubrange(k...)
                    stopped = (step.description, "screen '\(from.screen)' shows no '\(step)' to this user")
                    break
                }
            }
            from = outcomes[k].stack.top ?? from
        }
        // The screen on top of the stack after the last step taken (the start screen when none was).
        let top = outcomes.last?.stack.top
        let screenID = top?.screen ?? startEntry.screen
        let params = top?.params ?? inputs.params
        guard let current = ws.screenFiles()[screenID] else {
            return .problem(500, "Unknown screen", detail: "the navigation leads to screen '\(screenID)', which the project does not have")
        }
        var drawn = RenderLayout.request(current, user: user, device: inputs.device, showHidden: false, params: params)
        // The state of the screen on top, as the taps left it (docs/data.md, "State").
        let shownState = outcomes.isEmpty ? ws.screenState(file: current).0 : (outcomes.count <= replay.states.count ? replay.states[outcomes.count - 1] : nil)
        if let st = shownState { for (k, v) in st.values { drawn.state[k] = .value(v) } }
        let made = RenderLayout.make(drawn, in: ws)
        let layout: RenderLayout
        switch made {
        case .success(let l): layout = l
        case .failure(let stop):
            let d = stop.diagnostics.errors.first
            if d?.message.contains("needs a font") == true { return .problem(501, "No fonts", detail: d!.message) }
            return .problem(500, "The screen has errors", detail: d?.message ?? "the screen cannot be laid out", diagnostics: stop.diagnostics.sorted)
        }
        let stack = outcomes.last?.stack ?? NavigationStack([startEntry])
        var body: JSONValue = .object([
            "screen": .string(screenID),
            "params": .object(.init(uniqueKeysWithValues: params.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) })),
            "title": .string(layout.title),
            "start": .string(replay.entry?.description ?? id),
            "stack": .string(stack.description),
            "depth": .int(stack.entries.count),
            "taken": .array(outcomes.map { .string($0.input) }),
            "stopped": stopped.map { .object(["input": .string($0.input), "message": .string($0.message)]) } ?? .null,
            "layout": PreviewNodes.json(layout.result, content: layout.content),
            "diagnostics": TreeOutput.diagnosticsJSON(layout.diagnostics.sorted.filter { $0.severity != .note }),
        ])
        // Only a screen with state has "state" (the preview of a screen without is unchanged).
        if let st = shownState, case .object(var o) = body {
            o["state"] = st.json
            body = .object(o)
        }
        return APIResponse(status: 200, body: body.serialized(pretty: false) + "\n")
    }
}

extension ServeApp {
    /// The preview's routes: `GET /v1/preview/{id}` (a profile from the query) and `POST` (a
    /// body as `POST /v1/screens/{id}` takes: typed attributes), both with `steps` and `link`
    /// in the query.
    static func preview(_ request: ServeRequest, id: String, _ pool: WorkerPool<Workspace>, _ metrics: ServeMetrics,
                        _ options: ServeOptions) -> ServeReply {
        let route = "/v1/preview/{id}"
        guard request.method == .POST else {
            return .later {
                await answer(request, route: route, APIRequest(kind: .screen(id), body: nil, query: request.query), pool, metrics, options, PreviewHandler.handle)
            }
        }
        // The body as `POST /v1/screens/{id}` reads it (413, 422), answered by the preview's handler.
        return post(request, route: route, kind: .screen(id), pool, metrics, options, PreviewHandler.handle)
    }
}
