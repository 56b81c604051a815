import LoomCore
import LuaRuntime

/// Handles for measuring the host's own overhead against bare Lua calls (scripts/bench).
extension PluginEngine {
    /// The Lua function a registered rule calls.
    public func ruleFunction(named name: String) -> LuaRef? {
        factory.rules[name].flatMap { luaFunctions(of: $0.evaluator)?.evaluate }
    }

    /// The user table of a resolution context (made on first use) and a component's node table.
    public func benchmarkTables(context: ResolutionContext, component: Component) throws(LuaError) -> (user: Int32, node: Int32) {
        (try userRef(context, owner: 1), try nodeRef(component))
    }
}

/// Bench `builder_call`: the component builder calls that reach Lua during some resolutions
/// (`PluginEngine.captureBuilderCalls`), by resolution, in order, to make again
/// (`replayBuilderCalls`) and to make bare (`bareBuilderCalls`).
public final class BuilderCallCapture {
    struct Call {
        let builder: LuaComponentBuilder
        let request: BuildRequest
    }
    var resolutions: [[Call]] = []
    /// The calls captured.
    public var calls: Int { resolutions.reduce(0) { $0 + $1.count } }
    /// How many calls each builder got, as "type (kind)".
    public var mix: [String: Int] {
        var m: [String: Int] = [:]
        for r in resolutions { for c in r { m["\(c.builder.type) (\(c.builder.kind))", default: 0] += 1 } }
        return m
    }
}

extension PluginEngine {
    /// Runs `body` (resolutions) and captures the component builder calls that reached Lua in it:
    /// those past the builder's output cache, as `LuaComponentBuilder.build` makes them.
    public func captureBuilderCalls(_ body: () -> Void) -> BuilderCallCapture {
        let capture = BuilderCallCapture()
        var last: ObjectIdentifier?
        buildRecorder = { builder, request in
            // The requests keep their contexts alive: an identity seen is not reused.
            if ObjectIdentifier(request.context) != last {
                capture.resolutions.append([])
                last = ObjectIdentifier(request.context)
            }
            capture.resolutions[capture.resolutions.count - 1].append(.init(builder: builder, request: request))
        }
        defer { buildRecorder = nil }
        body()
        return capture
    }

    /// Makes every captured call again as its resolution made it: each resolution's calls in
    /// order, on fresh resolution tables (as a new resolution starts them, so the resolved
    /// nodes' tables are made again, by the call that first hands them over), through the
    /// builder's own `build` (output-cache check, node and children tables, owner switch, build
    /// scope, protected call, result read back into Swift). Returns how many calls reached Lua
    /// and how many succeeded.
    public func replayBuilderCalls(_ capture: BuilderCallCapture) -> (reached: Int, succeeded: Int) {
        var reached = 0, succeeded = 0
        for calls in capture.resolutions {
            let ctx = calls[0].request.context
            let before = ctx.pluginCalls
            _ = beginResolution(ctx)
            for c in calls {
                if case .success = c.builder.build(c.request) { succeeded += 1 }
            }
            reached += ctx.pluginCalls - before
        }
        return (reached, succeeded)
    }

    /// The captured calls' functions and argument tables, made once each (as the host makes
    /// them for the call) and kept in the registry: `[function, argument…]` per call, for
    /// `LuaState.benchmarkBarePCalls`. Release them with `releaseBareBuilderCalls`.
    public func bareBuilderCalls(_ capture: BuilderCallCapture) throws(LuaError) -> [[Int32]] {
        let top = state.top
        defer { state.top = top }
        var out: [[Int32]] = []
        for calls in capture.resolutions {
            let ctx = calls[0].request.context
            let data = beginResolution(ctx)
            for c in calls {
                let style = ctx.nodeStyles.isEmpty ? nil : ctx.nodeStyles[c.request.component.serial]
                let n = Int(try c.builder.pushArguments(c.request, data, style: style))
                var refs = [Int32](repeating: 0, count: n)
                for i in stride(from: n - 1, through: 0, by: -1) { refs[i] = state.rawRef() }
                out.append([c.builder.function.ref] + refs)
            }
        }
        return out
    }

    public func releaseBareBuilderCalls(_ calls: [[Int32]]) {
        for c in calls { for r in c.dropFirst() where r >= 0 { state.release(rawRef: r) } }
    }
}
