import CLua
import LoomCore
import LuaRuntime
import OrderedCollections

/// Per-resolution data: the user's attributes as frozen views, one per plugin (made on first
/// use and reused by every call of that plugin in the resolution: no plugin sees another's
/// view), and the tables of the nodes resolved so far (each made once, handed to its parent's
/// builder and to its grandparent's as a grandchild).
final class UserTable {
    let state: LuaState
    /// Registry references of the user views, by owner (plugin) id.
    @exclusivity(unchecked) var views: [Int32: Int32] = [:]
    @exclusivity(unchecked) var nodeTables: [Int: Int32] = [:]
    init(state: LuaState) {
        self.state = state
    }
    deinit {
        for (_, r) in views { loom_unref(state.mainThread, r) }
        for (_, r) in nodeTables { loom_unref(state.mainThread, r) }
    }
}

extension PluginEngine {
    func failure(_ e: LuaError) -> BuildFailure {
        BuildFailure(e.message, scriptLocation: location(of: e))
    }

    /// The data of this resolution (made on first use).
    @inline(__always)
    func resolutionData(_ ctx: ResolutionContext) -> UserTable {
        if let u = ctx.engineData { return unsafeDowncast(u, to: UserTable.self) }
        let t = UserTable(state: state)
        ctx.engineData = t
        return t
    }

    /// The frozen view of the user for plugin `owner` in this resolution (made on first use).
    @inline(__always)
    func userRef(_ ctx: ResolutionContext, owner: Int32) throws(LuaError) -> Int32 {
        if ctx.engineSlotOwner == owner, ctx.engineSlot >= 0 { return ctx.engineSlot }
        let data = resolutionData(ctx)
        if let r = data.views[owner] {
            ctx.engineSlot = r
            ctx.engineSlotOwner = owner
            return r
        }
        var attrs = ctx.user.attributes
        if attrs["profile"] == nil, let n = ctx.user.name { attrs["profile"] = .string(n) }
        state.push(json: .object(attrs), keepingOrder: true)
        try sandbox.freezeTop()
        let r = loom_ref(state.mainThread)
        data.views[owner] = r
        ctx.engineSlot = r
        ctx.engineSlotOwner = owner
        return r
    }

    /// A rule's arguments, frozen, made once per rule reference (keyed by its location).
    func argsRef(_ args: JSONNode, key: SourceLocation) throws(LuaError) -> Int32 {
        if let r = argRefs[key] { return r }
        if let deep = args.firstTooDeep() {  // `check` reports it first; never pushed
            throw LuaError(kind: .host, message: "the arguments are \(Limits.nestingMessage) (at \(deep.position.line):\(deep.position.column))")
        }
        state.push(json: args, keepingOrder: true)
        if state.type(-1) == LUA_TTABLE { try sandbox.freezeTop() }
        let r = loom_ref(state.L)
        argRefs[key] = r
        return r
    }

    /// The same, found by the rule's subject (a component or item) and the reference's place:
    /// no string hashing on the hot path.
    @inline(__always)
    func argsRef(_ args: JSONNode, subject: UInt, location: SourceLocation) throws(LuaError) -> Int32 {
        let pos = SourcePosition(line: location.line, column: location.column)
        if let i = argsBySubject[key: subject] {
            for (p, r) in argLists[Int(i)] where p == pos { return r }
        }
        let r = try argsRef(args, key: location)
        if let i = argsBySubject[key: subject] {
            argLists[Int(i)].append((pos, r))
        } else {
            argsBySubject[key: subject] = Int32(argLists.count)
            argLists.append([(pos, r)])
        }
        return r
    }

    /// The frozen node table of a component (made once per component).
    @inline(__always)
    func nodeRef(_ c: Component) throws(LuaError) -> Int32 {
        if let r = nodeRefs[key: IdentityMap.key(c)] { return r }
        var o: OrderedDictionary<String, JSONValue> = ["type": .string(c.type)]
        if let id = c.id { o["id"] = .string(id) }
        o["meta"] = c.metaValue ?? .object([:])
        if let l = c.layout { o["layout"] = PluginEngine.normalizedLayout(l.plain) }
        if let h = c.header { o["header"] = h.plain }
        if let f = c.footer { o["footer"] = f.plain }
        if let a = c.action { o["action"] = .string(a) }
        if let t = c.title { o["title"] = .string(t) }
        o["path"] = .string(c.path)
        if c.hasItems { o["items"] = .array(c.items.map { PluginEngine.itemJSON($0) }) }
        state.push(json: .object(o), keepingOrder: true)
        try sandbox.freezeTop()
        let r = loom_ref(state.L)
        nodeRefs[key: IdentityMap.key(c)] = r
        retained.append(c)
        return r
    }

    func itemRef(_ item: Item) throws(LuaError) -> Int32 {
        if let r = nodeRefs[key: IdentityMap.key(item)] { return r }
        state.push(json: PluginEngine.itemJSON(item), keepingOrder: true)
        try sandbox.freezeTop()
        let r = loom_ref(state.L)
        nodeRefs[key: IdentityMap.key(item)] = r
        retained.append(item)
        return r
    }

    func pushRef(_ r: Int32) { _ = loom_rawget_ref(state.L, lua_Integer(r)) }

    /// Pushes a rule's arguments (nil when there are none); cached by `key` when given.
    func pushArgs(_ args: JSONNode?, key: SourceLocation?) throws(LuaError) {
        guard let args else { return state.pushNil() }
        if let key { return pushRef(try argsRef(args, key: key)) }
        state.push(json: args)
        if state.type(-1) == LUA_TTABLE { try sandbox.freezeTop() }
    }

    func pushNode(_ c: Component) throws(LuaError) { pushRef(try nodeRef(c)) }
    func pushItem(_ i: Item) throws(LuaError) { pushRef(try itemRef(i)) }

    static func itemJSON(_ item: Item) -> JSONValue {
        var o: OrderedDictionary<String, JSONValue> = [:]
        if let v = item.id { o["id"] = .string(v) }
        if let v = item.kind { o["kind"] = .string(v) }
        if let v = item.title { o["title"] = .string(v) }
        if let v = item.subtitle { o["subtitle"] = .string(v) }
        if let v = item.text { o["text"] = .string(v) }
        if let v = item.image { o["image"] = .string(v) }
        if let v = item.action { o["action"] = .string(v) }
        o["meta"] = item.meta?.plain ?? .object([:])
        o["path"] = .string(item.path)
        return .object(o)
    }

    /// Spots wrote numbers as strings at times ("span": "1"); builders see numbers.
    static func normalizedLayout(_ v: JSONValue) -> JSONValue {
        guard case .object(var o) = v else { return v }
        for (k, x) in o {
            if case .string(let s) = x, let n = Double(s) {
                o[k] = n == n.rounded() && abs(n) < 1e15 ? .int(Int(n)) : .double(n)
            }
        }
        return .object(o)
    }

    /// Pushes the frozen table of a resolved node `{ type, id, view, props, meta, action,
    /// children }`, made once per resolution. Its props are made from the JSON the child's
    /// builder returned, never the builder's own table: a parent's builder (of another plugin,
    /// maybe) can neither change nor keep a handle on what the child's plugin made.
    func pushResolved(_ n: ResolvedNode, _ data: UserTable) {
        if let r = data.nodeTables[n.serial] { return pushRef(r) }
        // A single component's table depends on its node only: made once, kept (frozen).
        let single = n.origin.map { singleCache[ObjectIdentifier($0)] != nil } ?? false
        if single, let r = singleTables[ObjectIdentifier(n.origin!)] { return pushRef(r) }
        state.newTable(nrec: 7)
        state.push(n.type)
        state.setField(-2, "type")
        if let id = n.id {
            state.push(id)
            state.setField(-2, "id")
        }
        state.push(n.view)
        state.setField(-2, "view")
        // Singles' props come out sorted, as they always have; the others keep the order their
        // builder gave them (the order of a node's meta it passed on, say).
        state.push(json: n.props, keepingOrder: !single)
        state.setField(-2, "props")
        if let origin = n.origin {
            pushMeta(origin)
        } else {
            state.push(json: n.meta ?? .object([:]))
        }
        state.setField(-2, "meta")
        if let a = n.action {
            state.push(a)
            state.setField(-2, "action")
        }
        if !n.children.isEmpty {
            state.newTable(narr: Int32(n.children.count))
            for (i, c) in n.children.enumerated() {
                pushResolved(c, data)
                state.setIndex(-2, i + 1)
            }
            state.setField(-2, "children")
        }
        guard (try? sandbox.freezeTop()) != nil else { return }
        state.pushCopy(-1)
        if single {
            singleTables[ObjectIdentifier(n.origin!)] = loom_ref(state.mainThread)
        } else {
            data.nodeTables[n.serial] = loom_ref(state.mainThread)
        }
    }

    /// Pushes a component's meta, frozen (made once per component).
    func pushMeta(_ c: Component) {
        if let r = metaRefs[ObjectIdentifier(c)] { return pushRef(r) }
        state.push(json: c.metaValue ?? .object([:]), keepingOrder: true)
        guard (try? sandbox.freezeTop()) != nil else { return }
        state.pushCopy(-1)
        metaRefs[ObjectIdentifier(c)] = loom_ref(state.L)
        retained.append(c)
    }

    /// Pushes the frozen table of a resolved item `{ kind, id, view, props, action }` (made once
    /// per item: item views are deterministic and see only the item).
    func pushResolved(_ i: ResolvedItem) throws(LuaError) {
        if let origin = i.origin, let r = itemTables[ObjectIdentifier(origin)] { return pushRef(r) }
        var o: OrderedDictionary<String, JSONValue> = [:]
        if let k = i.kind { o["kind"] = .string(k) }
        if let id = i.id { o["id"] = .string(id) }
        o["view"] = .string(i.view)
        o["props"] = i.props
        if let a = i.action { o["action"] = .string(a) }
        state.push(json: .object(o))
        guard let origin = i.origin else { return }
        try sandbox.freezeTop()
        state.pushCopy(-1)
        itemTables[ObjectIdentifier(origin)] = loom_ref(state.L)
        retained.append(origin)
    }

    /// Reads a builder's result `{ view, props, children? }` at the top of the stack (pops it).
    /// `childrenIndex` is the stack index of the children list that was passed, for identity.
    func readBuildResult(what: String, childrenIndex: Int32?, childIDs: [String?]) -> Result<BuildOutput, BuildFailure> {
        defer { state.pop(1) }
        guard state.type(-1) == LUA_TTABLE else {
            return .failure(BuildFailure("\(what) must return a table { view = NAME, props = TABLE }, returned \(state.type(-1) == LUA_TNIL ? "nothing" : "a " + state.typeName(-1))"))
        }
        state.getField(-1, "view")
        guard let view = state.toString(-1), !view.isEmpty else {
            let tn = state.type(-1) == LUA_TNIL ? "no view" : "a \(state.typeName(-1)) view"
            state.pop(1)
            return .failure(BuildFailure("\(what) returned \(tn); 'view' must be a non-empty string"))
        }
        state.pop(1)
        state.getField(-1, "props")
        let props: JSONValue
        switch state.type(-1) {
        case LUA_TNIL: props = .object([:])
        case LUA_TTABLE, LUA_TUSERDATA:  // a table, or a read-only view the host handed in
            switch state.json(at: -1) {
            case .success(let v):
                if case .array(let a) = v, !a.isEmpty {
                    state.pop(1)
                    return .failure(BuildFailure("\(what): 'props' must be a table of named fields, not a list"))
                }
                if case .array = v { props = .object([:]) } else { props = v }
            case .failure(let e):
                state.pop(1)
                return .failure(BuildFailure("\(what): props: \(e.message)"))
            }
        default:
            let tn = state.typeName(-1)
            state.pop(1)
            return .failure(BuildFailure("\(what): 'props' must be a table, found a \(tn)"))
        }
        state.pop(1)
        var order: [Int]?
        state.getField(-1, "children")
        if state.type(-1) == LUA_TTABLE, let ci = childrenIndex {
            var out: [Int] = []
            let n = state.rawLength(-1)
            if n > 0 {
                // The children passed, by table identity and by id: one pass each, so a
                // builder returning thousands of children stays linear.
                var byIdentity: [UnsafeRawPointer: Int] = [:]
                for j in 0..<childIDs.count {
                    state.getIndex(ci, j + 1)
                    if let p = lua_topointer(state.L, -1) { byIdentity[p] = j }
                    state.pop(1)
                }
                var byID: [String: Int] = [:]
                for (j, id) in childIDs.enumerated() { if let id, byID[id] == nil { byID[id] = j } }
                for i in 1...n {
                    state.getIndex(-1, i)
                    var found: Int?
                    if let s = state.toString(-1) {
                        found = byID[s]
                    } else if state.type(-1) == LUA_TTABLE || state.type(-1) == LUA_TUSERDATA, let p = lua_topointer(state.L, -1) {
                        found = byIdentity[p]
                    }
                    state.pop(1)
                    guard let f = found else {
                        state.pop(1)
                        return .failure(BuildFailure("\(what): 'children'[\(i)] is not one of the children it was given (return them, or their ids)"))
                    }
                    out.append(f)
                }
            }
            order = out
        } else if state.type(-1) != LUA_TNIL {
            let tn = state.typeName(-1)
            state.pop(1)
            return .failure(BuildFailure("\(what): 'children' must be a list of the children it was given, found a \(tn)"))
        }
        state.pop(1)
        return .success(BuildOutput(view: view, props: props, childOrder: order))
    }
}

final class LuaComponentBuilder: ComponentBuilding {
    unowned let engine: PluginEngine
    let function: LuaRef
    let kind: ComponentKind
    let type: String
    let plugin: PluginInfo
    let owner: Int32
    let exhausted = ExhaustedMark()

    init(engine: PluginEngine, function: LuaRef, kind: ComponentKind, type: String, plugin: PluginInfo, owner: Int32) {
        self.engine = engine
        self.function = function
        self.kind = kind
        self.type = type
        self.plugin = plugin
        self.owner = owner
    }

    func build(_ request: BuildRequest) -> Result<BuildOutput, BuildFailure> {
        let engine = self.engine
        if kind == .single, let cached = engine.singleCache[ObjectIdentifier(request.component)] {
            return .success(cached)
        }
        if exhausted.isSet, let f = exhausted.failure(in: request.context) { return .failure(f) }
        let state = engine.state
        let top = state.top
        defer { state.top = top }
        request.context.pluginCalls += 1
        state.push(function)
        let data = engine.resolutionData(request.context)
        do {
            try engine.pushNode(request.component)
        } catch {
            return .failure(engine.failure(error))
        }
        var nargs: Int32 = 1
        var childrenIndex: Int32?
        switch kind {
        case .single: break
        case .wrapper:
            if let c = request.children.first { engine.pushResolved(c, data) } else { state.pushNil() }
            nargs = 2
        case .cluster:
            state.newTable(narr: Int32(request.children.count))
            for (i, c) in request.children.enumerated() {
                engine.pushResolved(c, data)
                state.setIndex(-2, i + 1)
            }
            nargs = 2
        case .collection:
            state.newTable(narr: Int32(request.items.count))
            do {
                for (i, it) in request.items.enumerated() {
                    try engine.pushResolved(it)
                    state.setIndex(-2, i + 1)
                }
            } catch {
                return .failure(engine.failure(error))
            }
            nargs = 2
        }
        if kind == .cluster {
            // Keep the list passed, to recognise the children the builder returns.
            state.pushCopy(-1)
            lua_rotate(state.L, -(nargs + 2), 1)
            childrenIndex = state.absIndex(-(nargs + 2))
        }
        let previousOwner = engine.enter(owner)
        defer { engine.leave(previousOwner) }
        do {
            try state.pcall(nargs: nargs, nresults: 1)
        } catch {
            exhausted.note(error, in: request.context)
            return .failure(engine.failure(error))
        }
        let result = engine.readBuildResult(
            what: "the builder of '\(type)' (plugin \(plugin.name))", childrenIndex: childrenIndex,
            childIDs: request.children.map(\.id))
        if kind == .single, case .success(let out) = result {
            engine.singleCache[ObjectIdentifier(request.component)] = out
            engine.retained.append(request.component)
        }
        return result
    }
}

final class LuaItemBuilder: ItemBuilding {
    unowned let engine: PluginEngine
    let function: LuaRef
    let kind: String
    let plugin: PluginInfo
    let owner: Int32
    let exhausted = ExhaustedMark()

    init(engine: PluginEngine, function: LuaRef, kind: String, plugin: PluginInfo, owner: Int32) {
        self.engine = engine
        self.function = function
        self.kind = kind
        self.plugin = plugin
        self.owner = owner
    }

    func build(_ item: Item, context: ResolutionContext) -> Result<BuildOutput, BuildFailure> {
        if let cached = engine.itemViewCache[ObjectIdentifier(item)] {
            return .success(cached)
        }
        if exhausted.isSet, let f = exhausted.failure(in: context) { return .failure(f) }
        let state = engine.state
        let top = state.top
        defer { state.top = top }
        context.pluginCalls += 1
        let previousOwner = engine.enter(owner)
        defer { engine.leave(previousOwner) }
        state.push(function)
        do {
            try engine.pushItem(item)
            try state.pcall(nargs: 1, nresults: 1)
        } catch {
            exhausted.note(error, in: context)
            return .failure(engine.failure(error))
        }
        let result = engine.readBuildResult(what: "the item view '\(kind)' (plugin \(plugin.name))", childrenIndex: nil, childIDs: [])
        if case .success(let out) = result {
            engine.itemViewCache[ObjectIdentifier(item)] = out
            engine.retained.append(item)
        }
        return result
    }
}

final class LuaRule: RuleEvaluating {
    unowned(unsafe) let engine: PluginEngine
    let function: LuaRef
    let checkFunction: LuaRef?
    let name: String
    let plugin: PluginInfo

    let fnRef: Int32
    /// The main thread: a rule may be registered from inside a coroutine, whose thread must
    /// not be kept (it may be collected).
    let L: OpaquePointer
    /// The resolution in which this rule exceeded a limit: it is not called again there.
    let exhausted = ExhaustedMark()

    let owner: Int32

    init(engine: PluginEngine, function: LuaRef, check: LuaRef?, name: String, plugin: PluginInfo, owner: Int32) {
        self.engine = engine
        self.owner = owner
        self.function = function
        fnRef = function.ref
        L = engine.state.mainThread
        self.checkFunction = check
        self.name = name
        self.plugin = plugin
    }

    func check(args: JSONNode?, file: String) -> [String] {
        // Arguments handed to Lua stay within the nesting limit (reported at their location).
        if let deep = args?.firstTooDeep() {
            return ["the arguments are \(Limits.nestingMessage) (at \(deep.position.line):\(deep.position.column))"]
        }
        guard let checkFunction else { return [] }
        let state = engine.state
        let top = state.top
        defer { state.top = top }
        let previousOwner = engine.enter(owner)
        defer { engine.leave(previousOwner) }
        state.push(checkFunction)
        do {
            try engine.pushArgs(args, key: nil)
            try state.pcall(nargs: 1, nresults: 1)
        } catch {
            return ["its argument check (plugin \(plugin.name)) failed: \(error)"]
        }
        switch state.type(-1) {
        case LUA_TNIL: return []
        case LUA_TSTRING, LUA_TTABLE: return state.checkMessages(at: -1)
        case LUA_TBOOLEAN where state.toBool(-1):
            return []
        default:
            return ["its argument check (plugin \(plugin.name)) returned a \(state.typeName(-1)); expected nothing or a message"]
        }
    }

    func evaluate(args: JSONNode?, at location: SourceLocation, subject: RuleSubject, context: ResolutionContext) -> Result<Bool, BuildFailure> {
        if _slowPath(exhausted.isSet), let f = exhausted.failure(in: context) { return .failure(f) }
        let engine = self.engine
        var result: Int32 = 0
        var exceeded: Int32 = 0
        let status: Int32
        do {
            let user = try engine.userRef(context, owner: owner)
            let node: Int32
            let subjectKey: UInt
            switch subject {
            case .component(let c):
                node = try engine.nodeRef(c)
                subjectKey = IdentityMap.key(c)
            case .item(let i):
                node = try engine.itemRef(i)
                subjectKey = IdentityMap.key(i)
            }
            let argsRef: Int32 = args == nil ? -1 : try engine.argsRef(args!, subject: subjectKey, location: location)
            status = loom_call_rule(L, owner, fnRef, user, argsRef, node, &result, &exceeded)
        } catch {
            return .failure(engine.failure(error))
        }
        if status != LUA_OK {
            let e = engine.state.popError(status: status, exceeded: exceeded)
            exhausted.note(e, in: context)
            return .failure(engine.failure(e))
        }
        if result >= 0 { return .success(result != 0) }
        let state = engine.state
        defer { state.pop(1) }
        return .failure(BuildFailure("rule '\(name)' (plugin \(plugin.name)) returned \(state.type(-1) == LUA_TNIL ? "nil" : "a " + state.typeName(-1)), expected a boolean"))
    }


}
