import Foundation
import LoomCore
import LoomNavigation
import LoomPlugins
import LuaRuntime
import OrderedCollections

/// Host functions of the scenario environment (registered_rules, load_file, direct calls).
extension ScenarioFileRunner {
    /// Calls a host function of the environment (print, require, registered_rules, load_file)
    /// on the main Lua thread, for scenario code running in its coroutine.
    func callDirect(_ args: [JSONValue]) throws(ScenarioFailure) -> Reply {
        let name = try string(args, 0, "host function name")
        let top = state.top
        defer { state.top = top }
        state.push(controlRef)
        state.getField(-1, "direct")
        guard state.type(-1) == .table else { throw ScenarioFailure("\(name): not available") }
        state.getField(-1, name)
        guard state.type(-1) == .function else { throw ScenarioFailure("\(name): not available") }
        for a in args.dropFirst() { state.push(json: a) }
        do {
            try withScenarioLimits { () throws(LuaError) in try state.pcall(nargs: Int32(args.count - 1), nresults: 1) }
        } catch {
            throw ScenarioFailure(error.file == nil ? error.message : error.description)
        }
        if state.type(-1) == .nil { return .json(.null) }
        return .ref(state.ref())
    }

    /// `registered_rules(plugin?)`: `{ [name] = { evaluate = fn, check = fn } }` for the Lua
    /// rules registered (by that plugin), e.g. to run a plugin's unit checks in the sandbox.
    func registeredRules(_ call: LuaCall) -> Result<Int32, LuaHostError> {
        let plugin = call.string(1)
        if call.count >= 1, call.type(1) != .nil, plugin == nil {
            return .failure(LuaHostError("registered_rules(plugin?): plugin must be a plugin name (a string)"))
        }
        state.newTable()
        for (name, reg) in ws.factory.rules.sorted(by: { $0.key < $1.key }) {
            if let plugin, reg.plugin.name != plugin { continue }
            guard let r = ws.engine.luaFunctions(of: reg.evaluator) else { continue }
            state.newTable()
            state.push(r.evaluate)
            state.setField(-2, "evaluate")
            if let c = r.check {
                state.push(c)
                state.setField(-2, "check")
            }
            state.setField(-2, name)
        }
        return .success(1)
    }

    /// `load_file(path)`: a Lua file of the project (or, for a plugin's scenarios, of the
    /// plugin), relative to the scenario file, loaded as a function in this environment.
    func loadFile(_ call: LuaCall) -> Result<Int32, LuaHostError> {
        guard let rel = call.string(1) else { return .failure(LuaHostError("load_file(path): path must be a string")) }
        let dir = ScenarioDiscovery.parent(file.path)
        let target = ScenarioDiscovery.standardized(Project.join(dir, rel))
        let allowed = ScenarioDiscovery.standardized(file.plugin ?? file.projectRoot)
        guard target.hasPrefix(allowed + "/") else {
            return .failure(LuaHostError("load_file('\(rel)'): only files inside \(file.plugin ?? file.projectRoot) can be loaded"))
        }
        guard SafeFile.isInside(target, root: file.plugin ?? file.projectRoot) else {
            return .failure(LuaHostError("load_file('\(rel)'): only files inside \(file.plugin ?? file.projectRoot) can be loaded"))
        }
        let source: String
        do { source = try SafeFile.readString(target, limits: options.fileLimits) } catch {
            return .failure(LuaHostError("load_file('\(rel)'): cannot read \(target): \(error.message)"))
        }
        do {
            state.push(envRef)
            try ws.engine.sandbox.loadChunk(source: source, chunkName: Project.displayPath(target), envIndex: -1)
            state.rotate(-2, 1)
            state.pop(1)
        } catch {
            return .failure(LuaHostError("load_file('\(rel)'): \(error)"))
        }
        return .success(1)
    }
}
