import LoomCore
import LoomNavigation
import LuaRuntime

/// A flow registered in Lua with `host.flow(name, { presentation, start, navigate, links })`:
/// `navigate(step, nav)` returns contributions made with `nav.push(screen, params)`, ...
final class LuaFlow: FlowNavigating, ParamNaming {
    unowned let engine: PluginEngine
    let registration: LuaFlowRegistration
    var paramNames: [String: String] = [:]

    init(engine: PluginEngine, registration: LuaFlowRegistration) {
        self.engine = engine
        self.registration = registration
    }

    func navigate(_ step: Step) -> Result<[Contribution], Diagnostic> {
        navigate(step, context: NavigationContext())
    }

    /// Calls `navigate(step, nav, ctx)`: `ctx.user` is the user's attributes and `ctx.params`
    /// the parameters of the screen the step comes from, both read-only. A screen shown
    /// without `params` receives the step's parameter (named as the deep links name it).
    func navigate(_ step: Step, context: NavigationContext) -> Result<[Contribution], Diagnostic> {
        guard let fn = registration.navigate else { return .success([]) }
        let previousOwner = engine.enter(registration.owner)
        defer { engine.leave(previousOwner) }
        let state = engine.state
        let top = state.top
        defer { state.top = top }
        state.push(fn)
        var stepTable: [String: JSONValue] = ["name": .string(step.name)]
        if let p = step.param { stepTable["param"] = .string(p) }
        state.push(json: .object(.init(uniqueKeysWithValues: stepTable.sorted { $0.key < $1.key })))
        do {
            try engine.pushNav()
            var user = context.user?.attributes ?? [:]
            if user["profile"] == nil, let n = context.user?.name { user["profile"] = .string(n) }
            let ctx: JSONValue = ["user": .object(user), "params": PluginEngine.paramsJSON(context.params)]
            state.push(json: ctx, keepingOrder: true)
            try engine.sandbox.freezeTree(name: "ctx")
            try state.pcall(nargs: 3, nresults: 1)
        } catch {
            return .failure(.error("flow '\(registration.name)' (plugin \(registration.plugin.name)) failed on step '\(step)': \(error)", at: errorLocation(error)))
        }
        let value: JSONValue
        switch state.json(at: -1) {
        case .success(let v): value = v
        case .failure(let e):
            return .failure(.error("flow '\(registration.name)': navigate returned something that is not a contribution: \(e.message)", at: registration.location))
        }
        // The nav helpers build the same tables as flows.json contributions; one decoder reads both.
        return Contribution.decode(value).map { $0.map { withStepParam($0, step) } }.mapError { d in
            .error("flow '\(registration.name)' (plugin \(registration.plugin.name)) step '\(step)': \(d.message); return nav.push(...), nav.present(...), nav.replace(...), nav.tab(...), nav.flow(...), nav.parent(...), nav.finish(...), nav.none() or a list of them", at: registration.location)
        }
    }

    /// A screen shown without params receives the step's parameter.
    func withStepParam(_ c: Contribution, _ step: Step) -> Contribution {
        guard let p = step.param, c.params.isEmpty else { return c }
        let params = [paramName(step): p]
        switch c {
        case .push(let s, _): return .push(s, params: params)
        case .present(let s, _): return .present(s, params: params)
        case .replace(let s, _): return .replace(s, params: params)
        case .tab(let s, _): return .tab(s, params: params)
        default: return c
        }
    }

    func errorLocation(_ e: LuaError) -> SourceLocation {
        if let f = e.file { return SourceLocation(file: f, line: e.line ?? 0, column: 0) }
        return registration.location
    }
}

extension PluginEngine {
    static let navSource = """
    -- Contribution constructors: each returns the table a flows.json step would hold.
    local function show(kind)
      return function(screen, params)
        if type(screen) ~= "string" then error("nav." .. kind .. "(screen, params): screen must be a string", 2) end
        if params ~= nil and type(params) ~= "table" then error("nav." .. kind .. ": params must be a table", 2) end
        return { [kind] = screen, params = params }
      end
    end
    return {
      push = show("push"), present = show("present"), replace = show("replace"), tab = show("tab"),
      flow = function(name, step)
        if type(name) ~= "string" then error("nav.flow(name, step): name must be a string", 2) end
        return { flow = name, step = step }
      end,
      parent = function(step) return { parent = step } end,
      finish = function(step) if step == nil then return { finish = true } end return { finish = step } end,
      none = function() return { none = true } end,
    }
    """

    /// Pushes the `nav` table of contribution constructors (made once).
    func pushNav() throws(LuaError) {
        if let r = navRef {
            state.push(r)
            return
        }
        try sandbox.pushEnvironment(label: "nav", folder: nil)
        try sandbox.loadChunk(source: PluginEngine.navSource, chunkName: "=nav", envIndex: -1)
        try state.pcall(nargs: 0, nresults: 1)
        try sandbox.freezeTop()
        state.pushCopy(-1)
        navRef = state.ref()
        state.rotate(-2, 1)
        state.pop(1)
    }

    /// The flows registered in Lua as navigation definitions.
    public func flowDefinitions(diagnostics: inout Diagnostics) -> [FlowDefinition] {
        var out: [FlowDefinition] = []
        for reg in luaFlows {
            guard case .object(let spec) = reg.spec else { continue }
            var presentation = Presentation.stack
            if case .string(let p)? = spec["presentation"] {
                switch Presentation.parse(p, at: reg.location) {
                case .success(let x): presentation = x
                case .failure(let e):
                    diagnostics.append(e)
                    continue
                }
            }
            guard case .string(let start)? = spec["start"], !start.isEmpty else {
                diagnostics.error("flow '\(reg.name)' (plugin \(reg.plugin.name)) needs 'start', a screen id", at: reg.location)
                continue
            }
            if reg.navigate == nil {
                diagnostics.error("flow '\(reg.name)' (plugin \(reg.plugin.name)) needs 'navigate', a function(step, nav)", at: reg.location)
                continue
            }
            var links: [LinkPattern] = []
            if case .object(let l)? = spec["links"] {
                for (pattern, v) in l.sorted(by: { $0.key < $1.key }) {
                    guard case .string(let steps) = v else {
                        diagnostics.error("flow '\(reg.name)': links map URL patterns to step lists (strings)", at: reg.location)
                        continue
                    }
                    switch LinkPattern.parse(pattern: pattern, steps: steps, at: reg.location) {
                    case .success(let p): links.append(p)
                    case .failure(let e): diagnostics.append(e)
                    }
                }
            }
            var hidden: Set<String> = []
            if let a = spec["accepts_when_hidden"] {
                if case .array(let list) = a, list.allSatisfy({ $0.string != nil }) {
                    hidden = Set(list.compactMap(\.string))
                } else {
                    diagnostics.error("flow '\(reg.name)' (plugin \(reg.plugin.name)): accepts_when_hidden must be a list of step names", at: reg.location)
                }
            }
            var definition = FlowDefinition(
                name: reg.name, presentation: presentation, start: start, location: reg.location, links: links,
                navigator: LuaFlow(engine: self, registration: reg), source: .lua(plugin: reg.plugin.name))
            definition.acceptsWhenHidden = hidden
            out.append(definition)
        }
        return out
    }
}
