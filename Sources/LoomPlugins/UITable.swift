import LoomCore
import LuaRuntime
import OrderedCollections

/// The nodes one builder call creates with `ui.*` (docs/plugin-api.md, "Creating nodes: ui.*"):
/// each `ui.*` call returns a frozen marker table; the builder's result names markers in
/// `children` (or under other created nodes), and the result reader turns them into
/// `CreatedNode`s. Made when a builder is called, dropped when its result is read.
final class BuildScope {
    /// Marker identity → index in `nodes`.
    var markers: [LuaIdentity: Int] = [:]
    var nodes: [CreatedNode] = []
    /// Whether each node was placed (under another created node, or in the result's children).
    var placed: [Bool] = []
    /// Registry references keeping the markers alive while the scope lasts (an identity is
    /// never reused by another table meanwhile).
    var refs: [Int32] = []
    /// Created nodes one builder call may make.
    static let maxNodes = CreatedNodeLimits.maxCount
}

extension PluginEngine {
    /// The keys of a `ui.*` table that are not meta: the component keys of screen JSON a created
    /// node takes, and those it does not take (an error, not meta).
    static let uiKeys: Set<String> = ["id", "rule", "style", "constraints", "action", "meta"]
    static let uiRefusedKeys: [String: String] = [
        "type": "the type is the name called (ui.label{…}, ui.node(\"label\", {…}))",
        "children": "created children go in the table's list part (ui.vstack{ ui.label{…}, … })",
        "items": "created nodes take no items", "layout": "created nodes take no layout",
        "header": "created nodes take no header", "footer": "created nodes take no footer",
    ]

    /// Pushes a plugin's `ui` table: `ui.<type>{…}` for any registered type or alias (looked
    /// up when indexed), `ui.node(type, {…})`. Read-only (writes are errors); one per plugin
    /// environment.
    func pushUITable() {
        state.newTable()
        state.pushFunction { [unowned self] call in self.createNode(call, type: call.string(1), tableIndex: 2, what: "ui.node") }
        state.setField(-2, "node")
        state.newTable()  // the metatable
        state.pushFunction { [unowned self] call in self.uiIndex(call) }
        state.setField(-2, "__index")
        state.pushFunction { call in
            .failure(LuaHostError("the ui table is read-only (field '\(call.string(2) ?? call.typeName(2))')"))
        }
        state.setField(-2, "__newindex")
        state.push(false)
        state.setField(-2, "__metatable")
        state.setMetatable(-2)
    }

    /// `ui.<name>`: the constructor of a registered type (one function per type, made once).
    /// An unknown name is an error at the caller's line, with a did-you-mean.
    func uiIndex(_ call: LuaCall) -> Result<Int32, LuaHostError> {
        let at = callerLocation()
        guard let name = call.string(2), call.type(2) == .string else {
            return .failure(LuaHostError("\(at.file):\(at.line): ui[\(call.typeName(2))]: the ui table is indexed by component type names"))
        }
        guard factory.componentRegistration(name) != nil else { return .failure(unknownType(name, at: at)) }
        if let r = uiConstructors[name] {
            pushRef(r)
            return .success(1)
        }
        state.pushFunction { [unowned self] call in self.createNode(call, type: name, tableIndex: 1, what: "ui.\(name)") }
        state.pushCopy(-1)
        uiConstructors[name] = state.rawRef()
        return .success(1)
    }

    func unknownType(_ name: String, at: SourceLocation) -> LuaHostError {
        LuaHostError("\(at.file):\(at.line): no component type '\(name)'\(DidYouMean.hint(name, among: factory.allTypeNames.sorted()))")
    }

    /// `ui.<type>{…}` / `ui.node(type, {…})`: records a created node in the running builder's
    /// scope and returns its marker `{ type = TYPE }` (frozen).
    func createNode(_ call: LuaCall, type: String?, tableIndex t: Int32, what: String) -> Result<Int32, LuaHostError> {
        let at = callerLocation()
        func fail(_ m: String) -> Result<Int32, LuaHostError> { .failure(LuaHostError("\(at.file):\(at.line): \(what): \(m)")) }
        guard let scope = buildScope else {
            return fail("nodes are created only while a component builder runs (not while a plugin loads, nor in a rule or an item view)")
        }
        guard let type, !type.isEmpty, call.type(1) == .string || t == 1 else {
            return fail("the type must be a non-empty string, found \(call.typeName(1))")
        }
        guard factory.componentRegistration(type) != nil else { return .failure(unknownType(type, at: at)) }
        guard scope.nodes.count < BuildScope.maxNodes else {
            return fail("more than \(BuildScope.maxNodes) nodes created in one builder call")
        }
        var node = CreatedNode(type: type, location: SourceLocation(file: at.file, line: at.line, column: 1))
        switch state.type(t) {
        case .nil, .none: break
        case .table:
            switch readUIFields(t, into: &node, scope: scope) {
            case .success: break
            case .failure(let m): return fail(m.message)
            }
        default:
            return fail("expects a table { id = …, rule = …, meta = …, … }, found a \(state.typeName(t))")
        }
        state.newTable(nrec: 1)
        state.push(type)
        state.setField(-2, "type")
        do { try sandbox.freezeTree(name: "ui node") } catch { return fail(error.message) }
        guard let p = state.identity(-1) else { return fail("cannot make its marker") }
        state.pushCopy(-1)
        scope.refs.append(state.rawRef())
        scope.markers[p] = scope.nodes.count
        scope.nodes.append(node)
        scope.placed.append(false)
        return .success(1)
    }

    /// Reads the fields and the list part of a `ui.*` table (keys in sorted order: the same
    /// table always gives the same node or the same error).
    private func readUIFields(_ t: Int32, into node: inout CreatedNode, scope: BuildScope) -> Result<Void, LuaHostError> {
        var names: [String] = []
        var count = 0
        var badKey: String?
        state.forEachPair(t) {
            count += 1
            if state.type(-2) == .string, let k = state.toString(-2) {
                names.append(k)
            } else if !state.isInteger(-2), badKey == nil {
                badKey = state.typeName(-2)
            }
        }
        if let badKey { return .failure(LuaHostError("keys are field names or 1…n for children, found a \(badKey) key")) }
        let n = state.rawLength(t)
        guard count - names.count == n else { return .failure(LuaHostError("children must be listed 1…n without holes")) }
        names.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        var meta = OrderedDictionary<String, JSONValue>()
        var extra = OrderedDictionary<String, JSONValue>()
        for k in names {
            if let why = PluginEngine.uiRefusedKeys[k] { return .failure(LuaHostError("'\(k)' is not a field of a created node: \(why)")) }
            state.push(k)
            state.rawGet(t)
            defer { state.pop(1) }
            let value: JSONValue
            switch state.json(at: -1) {
            case .success(let v): value = v
            case .failure(let e): return .failure(LuaHostError("'\(k)': \(e.message)"))
            }
            func string() -> Result<String, LuaHostError> {
                if case .string(let s) = value { return .success(s) }
                return .failure(LuaHostError("'\(k)' must be a string, found a \(state.typeName(-1))"))
            }
            switch k {
            case "id":
                switch string() { case .success(let s): node.id = s; case .failure(let e): return .failure(e) }
            case "action":
                switch string() { case .success(let s): node.action = s; case .failure(let e): return .failure(e) }
            case "rule": node.rule = value
            case "style": node.style = value
            case "constraints":
                guard case .array(let list) = value.emptyAsArray, list.allSatisfy({ if case .string = $0 { true } else { false } }) else {
                    return .failure(LuaHostError("'constraints' is a list of constraint strings (docs/layout.md)"))
                }
                node.constraints = .array(list)
            case "meta":
                guard case .object(let o) = value.emptyAsObject else {
                    return .failure(LuaHostError("'meta' must be a table of named fields, found a list"))
                }
                meta = o
            default: extra[k] = value
            }
        }
        for (k, v) in extra {
            if meta[k] != nil { return .failure(LuaHostError("'\(k)' is given twice: as a field and in meta")) }
            meta[k] = v
        }
        if !meta.isEmpty || names.contains("meta") { node.meta = .object(meta) }
        for i in stride(from: 1, through: n, by: 1) {
            state.getIndex(t, i)
            defer { state.pop(1) }
            guard let p = state.identity(-1), let j = scope.markers[p] else {
                return .failure(LuaHostError(
                    "[\(i)] is not a node made by ui.* in this builder call (the children a builder was given go in its result's 'children', not under a created node)"))
            }
            guard !scope.placed[j] else { return .failure(LuaHostError("[\(i)] is placed twice (a created node goes in one place)")) }
            scope.placed[j] = true
            node.children.append(.created(scope.nodes[j]))
        }
        return .success(())
    }

    /// The created node a builder result's `children` entry names (at the top of the stack),
    /// marking it placed; nil when the entry is not a marker of this call.
    func createdChild(_ scope: BuildScope) -> Result<CreatedNode, LuaHostError>? {
        guard state.type(-1) == .userdata, let p = state.identity(-1), let j = scope.markers[p] else { return nil }
        if scope.placed[j] { return .failure(LuaHostError("it is placed twice (a created node goes in one place)")) }
        scope.placed[j] = true
        return .success(scope.nodes[j])
    }

    /// Ends a builder call's scope: an error when a created node was placed nowhere (fail
    /// closed: nothing created is dropped silently).
    func endBuildScope(_ scope: BuildScope) -> String? {
        for r in scope.refs { state.release(rawRef: r) }
        guard let j = scope.placed.firstIndex(of: false) else { return nil }
        let n = scope.nodes[j]
        return "the '\(n.type)' created at \(n.location) is in neither 'children' nor under another created node (return it, or do not create it)"
    }
}

extension JSONValue {
    /// An empty Lua table reads as `{}`: a list when a list is wanted.
    fileprivate var emptyAsArray: JSONValue {
        if case .object(let o) = self, o.isEmpty { return .array([]) }
        return self
    }

    fileprivate var emptyAsObject: JSONValue {
        if case .array(let a) = self, a.isEmpty { return .object([:]) }
        return self
    }
}
