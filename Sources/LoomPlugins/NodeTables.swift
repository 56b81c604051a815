import LoomCore
import LuaRuntime
import OrderedCollections

/// The frozen Lua tables of nodes, items and rule arguments, made once each and cached by the engine.
extension PluginEngine {
    /// A rule's arguments, frozen, made once per rule reference (keyed by its location), with
    /// the defaults its argument schema declares filled in.
    func argsRef(_ args: JSONNode, key: SourceLocation, schema: ArgumentSchema? = nil) throws(LuaError) -> Int32 {
        if let r = argRefs[key] { return r }
        if let deep = args.firstTooDeep() {  // `check` reports it first; never pushed
            throw LuaError(kind: .host, message: "the arguments are \(Limits.nestingMessage) (at \(deep.position.line):\(deep.position.column))")
        }
        if let schema, schema.hasDefaults {
            state.push(json: schema.withDefaults(args.plain), keepingOrder: true)
        } else {
            state.push(json: args, keepingOrder: true)
        }
        if state.type(-1) == .table { try sandbox.freezeTree() }
        let r = state.rawRef()
        argRefs[key] = r
        return r
    }

    /// The same, found by the rule's subject (a component or item) and the reference's place:
    /// no string hashing on the hot path.
    @inline(__always)
    func argsRef(_ args: JSONNode, subject: UInt, location: SourceLocation, schema: ArgumentSchema?) throws(LuaError) -> Int32 {
        let pos = SourcePosition(line: location.line, column: location.column)
        if let i = argsBySubject[key: subject] {
            for (p, r) in argLists[Int(i)] where p == pos { return r }
        }
        let r = try argsRef(args, key: location, schema: schema)
        if let i = argsBySubject[key: subject] {
            argLists[Int(i)].append((pos, r))
        } else {
            argsBySubject[key: subject] = Int32(argLists.count)
            argLists.append([(pos, r)])
        }
        return r
    }

    /// A rule call's tables when every one is made already (`userRef`, `nodeRef` / `itemRef`,
    /// `argsRef(_:subject:location:schema:)`, the rule's `defaults`: -2 when not made yet): the
    /// same references those give, found without a call, a throw or a retain; nil when one is
    /// missing (or the subject was created by a builder: those take the full path).
    @inline(__always)
    func madeTables(owner: Int32, context: ResolutionContext, subject: RuleSubject, hasArgs: Bool, at location: SourceLocation,
                    defaults: Int32) -> (user: Int32, node: Int32, args: Int32)? {
        guard hotOwner == owner, hotContext == ObjectIdentifier(context) else { return nil }
        // A template element's node is called with its own view (the user's with the element's
        // attributes, ScopedUserViews.swift), not the hot plain view: the slow path makes it.
        // (Taking the plain view here read `m.available` as absent from the second call on:
        // an element's second rule leaf, or its first in a later resolution.)
        guard subject.scope == nil else { return nil }
        let key: UInt
        switch subject {
        case .component(let c):
            guard c.creation == nil else { return nil }
            key = IdentityMap.key(c)
        case .item(let i):
            key = IdentityMap.key(i)
        }
        guard let node = nodeRefs[key: key] else { return nil }
        let args: Int32
        if hasArgs {
            guard let i = argsBySubject[key: key] else { return nil }
            let pos = SourcePosition(line: location.line, column: location.column)
            var found: Int32?
            for (p, r) in argLists[Int(i)] where p == pos {
                found = r
                break
            }
            guard let found else { return nil }
            args = found
        } else {
            guard defaults != -2 else { return nil }
            args = defaults
        }
        return (hotView, node, args)
    }

    /// The frozen node table of a component (made once per component).
    @inline(__always)
    func nodeRef(_ c: Component) throws(LuaError) -> Int32 {
        try frozenRef(c) { PluginEngine.nodeJSON(c) }
    }

    /// A node's static fields (what every resolution shares).
    /// (`writtenStyle` false: without the `style` key as written, a resolved style's place.)
    static func nodeJSON(_ c: Component, header: Bool = false, footer: Bool = false, writtenStyle: Bool = true) -> JSONValue {
        var o: OrderedDictionary<String, JSONValue> = ["type": .string(c.type)]
        if let id = c.id { o["id"] = .string(id) }
        o["meta"] = c.metaValue ?? .object([:])
        if let l = c.layout { o["layout"] = PluginEngine.normalizedLayout(l.plain) }
        if header { o["header"] = .bool(false) }  // replaced by the resolved header
        if footer { o["footer"] = .bool(false) }
        if let a = c.action { o["action"] = .string(a) }
        if let t = c.title { o["title"] = .string(t) }
        if writtenStyle, let st = c.style { o["style"] = st.plain }  // as written, unless a resolved style replaces it
        o["path"] = .string(c.path)
        if c.hasItems { o["items"] = .array(c.items.map { PluginEngine.itemJSON($0) }) }
        return .object(o)
    }

    /// Pushes the node table a builder receives: the component's, with a collection's header
    /// and footer resolved for this resolution (the resolved node tables its parent would see;
    /// absent when hidden). Those depend on the user, so such a table is made per build.
    /// `style`: the component's resolved style (`node.style`: its frozen table, made once per
    /// distinct style).
    func pushNode(_ request: BuildRequest, _ data: ResolutionTables, style: NodeStyle?) throws(LuaError) {
        let c = request.component
        let ctx = request.context
        let bound = ctx.boundMeta[c.serial]
        let styleRef = try style.map { s throws(LuaError) in try self.styleRef(s) }
        // A created node (`ui.*`) made for one resolution only: its table is made per build, not
        // kept by identity.
        let perBuild = c.header != nil || c.footer != nil || !ctx.params.isEmpty || bound != nil || !c.isLasting
        guard perBuild || style != nil else { return try pushNode(c) }
        // A lasting styled node's table depends on the component and its style only: kept.
        let styledKey = perBuild ? nil : style.map { StyledKey(c, $0) }
        if let styledKey, let r = styledNodeRefs[styledKey] { return pushRef(r) }
        // A resolved style replaces the `style` key as written: `{key: value}` in the output
        // shapes (docs/styles.md), set below from its frozen table.
        var node = PluginEngine.nodeJSON(c, header: request.header != nil, footer: request.footer != nil, writtenStyle: style == nil)
        if case .object(var o) = node {
            // With parameters the table is this resolution's: meta with its bindings
            // substituted, and `params` (read-only, like the rest of the node).
            if let bound { o["meta"] = bound }
            if !ctx.params.isEmpty { o["params"] = PluginEngine.paramsJSON(ctx.params) }
            node = .object(o)
        }
        state.push(json: node, keepingOrder: true)
        if let styleRef {
            pushRef(styleRef)
            state.setField(-2, "style")
        }
        // A header or footer read as an item (Spots) reaches the builder as an item table, as
        // its items do (`kind`, `id`, `view`, `props`, `action`).
        if let h = request.header {
            if let hi = h.asItem { try pushResolved(hi) } else { pushResolved(h, data) }
            state.setField(-2, "header")
        }
        if let f = request.footer {
            if let fi = f.asItem { try pushResolved(fi) } else { pushResolved(f, data) }
            state.setField(-2, "footer")
        }
        try sandbox.freezeTree()
        if let styledKey {
            state.pushCopy(-1)
            styledNodeRefs[styledKey] = state.rawRef()
            retained.append(c)
        }
    }

    /// The frozen `node.style` table of a resolved style, made once per distinct style.
    func styleRef(_ style: NodeStyle) throws(LuaError) -> Int32 {
        if let r = styleRefs[style.id] { return r }
        state.push(json: style.values, keepingOrder: true)
        try sandbox.freezeTree(name: "style")
        let r = state.rawRef()
        styleRefs[style.id] = r
        return r
    }

    /// The parameters as a table with sorted keys.
    static func paramsJSON(_ params: [String: String]) -> JSONValue {
        .object(OrderedDictionary(uniqueKeysWithValues: params.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) }))
    }

    func itemRef(_ item: Item) throws(LuaError) -> Int32 {
        try frozenRef(item) { PluginEngine.itemJSON(item) }
    }

    /// The frozen table of a component or item, made once per object (kept alive, so its
    /// identity cannot be reused by another).
    @inline(__always)
    private func frozenRef<T: AnyObject>(_ object: T, _ json: () -> JSONValue) throws(LuaError) -> Int32 {
        let key = IdentityMap.key(object)
        if let r = nodeRefs[key: key] { return r }
        state.push(json: json(), keepingOrder: true)
        try sandbox.freezeTree()
        let r = state.rawRef()
        nodeRefs[key: key] = r
        retained.append(object)
        return r
    }

    func pushRef(_ r: Int32) { state.push(rawRef: r) }

    /// Pushes a rule's arguments (nil when there are none); cached by `key` when given.
    func pushArgs(_ args: JSONNode?, key: SourceLocation?) throws(LuaError) {
        guard let args else { return state.pushNil() }
        if let key { return pushRef(try argsRef(args, key: key)) }
        state.push(json: args)
        if state.type(-1) == .table { try sandbox.freezeTree() }
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
        if let v = item.size { o["size"] = v.plain }
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
}
