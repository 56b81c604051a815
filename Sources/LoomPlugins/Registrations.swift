import Foundation
import LoomCore
import LuaRuntime
import OrderedCollections

/// host.single/wrapper/cluster/collection, host.item, host.rule and host.flow.
extension PluginEngine {
    func registerComponent(_ call: LuaCall, kind: ComponentKind, fname: String, info: PluginInfo, owner: Int32) -> Result<Int32, LuaHostError> {
        if let e = checkRegistering(fname, info) { return .failure(e) }
        let loc = callerLocation()
        guard let type = call.string(1), !type.isEmpty else {
            return .failure(LuaHostError("host.\(fname)(type, build, options): type must be a non-empty string"))
        }
        guard call.type(2) == .function else {
            return .failure(LuaHostError("host.\(fname)('\(type)', build, options): build must be a function, found a \(call.typeName(2))"))
        }
        let opts: JSONValue
        switch options(at: 3, functions: []) {
        case .success(let o): opts = o.0
        case .failure(let e): return .failure(LuaHostError("host.\(fname)('\(type)'): \(e.message)"))
        }
        guard case .object(let o) = opts else { return .failure(LuaHostError("host.\(fname)('\(type)'): options must be a table")) }
        var meta: MetaSchema?
        var childMeta: MetaSchema?
        if let m = o["meta"] {
            switch MetaSchema.parse(m, path: "options.meta") {
            case .success(let s): meta = s
            case .failure(let e): return .failure(LuaHostError("host.\(fname)('\(type)'): \(e.message)"))
            }
        }
        if let m = o["child_meta"] {
            switch MetaSchema.parse(m, path: "options.child_meta") {
            case .success(let s): childMeta = s
            case .failure(let e): return .failure(LuaHostError("host.\(fname)('\(type)'): \(e.message)"))
            }
        }
        var layout: ArgumentSchema?
        if let l = o["layout"] {
            switch ArgumentSchema.parseArguments(l, path: "options.layout") {
            case .success(let s): layout = s
            case .failure(let e): return .failure(LuaHostError("host.\(fname)('\(type)'): \(e.message)"))
            }
        }
        var styleTypes: [(key: String, type: String)]?
        if let st = o["style"] {
            switch PluginEngine.parseStyleTypes(st) {
            case .success(let s): styleTypes = s
            case .failure(let e): return .failure(LuaHostError("host.\(fname)('\(type)'): \(e.message)"))
            }
        }
        var renamed: [String: String] = [:]
        if case .object(let r)? = o["renamed"] {
            for (k, v) in r { if case .string(let s) = v { renamed[k] = s } }
        }
        var aliases: [String] = []
        if case .array(let a)? = o["aliases"] {
            for v in a { if case .string(let s) = v { aliases.append(s) } }
        }
        var openMeta = false
        if case .bool(let b)? = o["open_meta"] { openMeta = b }
        var openStyle = false
        if case .bool(let b)? = o["open_style"] { openStyle = b }
        var itemView = "ItemView"
        if case .string(let s)? = o["item_view"] { itemView = s }
        var description: String?
        if case .string(let s)? = o["description"] { description = s }
        var layoutAs: String?
        if let la = o["layout_as"] {
            guard case .string(let s) = la, ComponentRegistration.layoutRoles.contains(s) else {
                let found = if case .string(let s) = la { "'\(s)'\(DidYouMean.hint(s, among: ComponentRegistration.layoutRoles))" } else { "a non-string" }
                return .failure(LuaHostError("host.\(fname)('\(type)'): options.layout_as must be one of \(ComponentRegistration.layoutRoles.joined(separator: ", ")), found \(found)"))
            }
            layoutAs = s
        }
        state.pushCopy(2)
        let builder = LuaComponentBuilder(engine: self, function: state.ref(), kind: kind, type: type, plugin: info, owner: owner)
        let reg = ComponentRegistration(
            type: type, kind: kind, plugin: info, location: loc, meta: meta, openMeta: openMeta, renamed: renamed,
            childMeta: childMeta, aliases: aliases, itemView: itemView, description: description, layout: layout, builder: builder)
        reg.styleTypes = styleTypes
        reg.openStyle = openStyle
        reg.layoutAs = layoutAs
        do {
            try factory.register(reg)
        } catch {
            diagnostics.append(error)
        }
        return .success(0)
    }

    func registerItem(_ call: LuaCall, info: PluginInfo, owner: Int32) -> Result<Int32, LuaHostError> {
        if let e = checkRegistering("item", info) { return .failure(e) }
        let loc = callerLocation()
        guard let kind = call.string(1), !kind.isEmpty else { return .failure(LuaHostError("host.item(kind, build): kind must be a non-empty string")) }
        guard call.type(2) == .function else { return .failure(LuaHostError("host.item('\(kind)', build): build must be a function, found a \(call.typeName(2))")) }
        state.pushCopy(2)
        let b = LuaItemBuilder(engine: self, function: state.ref(), kind: kind, plugin: info, owner: owner)
        do { try factory.register(ItemRegistration(kind: kind, plugin: info, location: loc, builder: b)) } catch { diagnostics.append(error) }
        return .success(0)
    }

    func registerRule(_ call: LuaCall, info: PluginInfo, owner: Int32) -> Result<Int32, LuaHostError> {
        if let e = checkRegistering("rule", info) { return .failure(e) }
        let loc = callerLocation()
        guard let name = call.string(1), !name.isEmpty else { return .failure(LuaHostError("host.rule(name, evaluate, options): name must be a non-empty string")) }
        guard call.type(2) == .function else { return .failure(LuaHostError("host.rule('\(name)', evaluate): evaluate must be a function, found a \(call.typeName(2))")) }
        if ["AND", "OR", "NOT", "and", "or", "not"].contains(name) {
            return .failure(LuaHostError("host.rule('\(name)'): AND, OR and NOT are operators, not rule names"))
        }
        let opts: (JSONValue, [String: LuaRef])
        switch options(at: 3, functions: ["check"]) {
        case .success(let o): opts = o
        case .failure(let e): return .failure(LuaHostError("host.rule('\(name)'): \(e.message)"))
        }
        var description: String?
        if case .object(let o) = opts.0, case .string(let s)? = o["description"] { description = s }
        // `args` (the argument schema) and `examples`, declared beside the rule.
        let declared: RuleDeclaration
        switch RuleDeclaration.parse(opts.0) {
        case .success(let d): declared = d
        case .failure(let e): return .failure(LuaHostError("host.rule('\(name)'): \(e.message)"))
        }
        state.pushCopy(2)
        let r = LuaRule(engine: self, function: state.ref(), check: opts.1["check"], name: name, plugin: info, owner: owner)
        r.arguments = declared.arguments
        r.reads = declared.reads
        do {
            try factory.register(RuleRegistration(
                name: name, plugin: info, location: loc, description: description, arguments: declared.arguments,
                examples: declared.examples, evaluator: r))
        } catch { diagnostics.append(error) }
        return .success(0)
    }

    func registerFlow(_ call: LuaCall, info: PluginInfo, owner: Int32) -> Result<Int32, LuaHostError> {
        if let e = checkRegistering("flow", info) { return .failure(e) }
        let loc = callerLocation()
        guard let name = call.string(1), !name.isEmpty else { return .failure(LuaHostError("host.flow(name, spec): name must be a non-empty string")) }
        guard call.type(2) == .table else { return .failure(LuaHostError("host.flow('\(name)', spec): spec must be a table, found a \(call.typeName(2))")) }
        let spec: (JSONValue, [String: LuaRef])
        switch options(at: 2, functions: ["navigate"]) {
        case .success(let o): spec = o
        case .failure(let e): return .failure(LuaHostError("host.flow('\(name)'): \(e.message)"))
        }
        if let other = luaFlows.first(where: { $0.name == name }) {
            diagnostics.error("flow '\(name)' is already registered by plugin \(other.plugin.name) (\(other.location)); plugin \(info.name) cannot register it again", at: loc)
            return .success(0)
        }
        luaFlows.append(LuaFlowRegistration(name: name, spec: spec.0, navigate: spec.1["navigate"], plugin: info, location: loc, owner: owner))
        return .success(0)
    }
}
