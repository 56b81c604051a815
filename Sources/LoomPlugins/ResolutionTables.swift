import LoomCore
import OrderedCollections
import LuaRuntime

/// The Lua side of one resolution: the user's attributes as frozen views, one per plugin (made
/// on first use and reused by every call of that plugin in the resolution: no plugin sees
/// another's view; with `PluginEngine.userViewReuse`, reused by later resolutions of the same
/// user, parameters and device too), and the tables of the nodes resolved so far (each made once, handed to its
/// parent's builder and to its grandparent's as a grandchild). The engine keeps those of the
/// resolution running now (`PluginEngine.currentResolution`): core types carry nothing of Lua.
final class ResolutionTables {
    let state: LuaState
    /// The resolution these tables belong to, held strongly: while the engine keeps them, the
    /// context cannot be freed and its identity reused by another (the hot path compares
    /// identities only). Released when the next resolution begins or with the engine.
    let context: ResolutionContext
    /// The user views, by owner (plugin) id (set when a rule first asks for one).
    @exclusivity(unchecked) var views: UserViewSet?
    @exclusivity(unchecked) var nodeTables: [Int: Int32] = [:]

    init(state: LuaState, context: ResolutionContext) {
        self.state = state
        self.context = context
    }

    deinit {
        for (_, r) in nodeTables { state.release(rawRef: r) }
    }
}

extension PluginEngine {
    /// The tables of resolution `ctx` (made when it first calls into Lua; those of the previous
    /// resolution are released then).
    @inline(__always)
    func resolutionTables(_ ctx: ResolutionContext) -> ResolutionTables {
        if let t = currentResolution, t.context === ctx { return t }
        return beginResolution(ctx)
    }

    @inline(never)
    func beginResolution(_ ctx: ResolutionContext) -> ResolutionTables {
        let t = ResolutionTables(state: state, context: ctx)
        hotContext = nil
        currentResolution = t
        return t
    }

    /// The frozen view of the user for plugin `owner` in this resolution (made on first use).
    @inline(__always)
    func userRef(_ ctx: ResolutionContext, owner: Int32) throws(LuaError) -> Int32 {
        if hotOwner == owner, hotContext == ObjectIdentifier(ctx) { return hotView }
        let r = try userView(ctx, owner: owner)
        hotContext = ObjectIdentifier(ctx)
        hotOwner = owner
        hotView = r
        return r
    }

    @inline(never)
    func userView(_ ctx: ResolutionContext, owner: Int32) throws(LuaError) -> Int32 {
        let data = resolutionTables(ctx)
        let views: UserViewSet
        if let v = data.views { views = v } else {
            views = userViewSet(for: ctx)
            data.views = views
        }
        if let r = views.refs[owner] { return r }
        // The view over the table a recorded call made without it (`userTable`).
        if let t = views.tables[owner], state.pushView(ofTable: t, name: "node") {
            let r = state.rawRef()
            views.refs[owner] = r
            return r
        }
        if !(userViewsInOneCall && pushViewInOneCall(ctx)) {
            state.push(json: .object(PluginEngine.viewAttributes(ctx)), keepingOrder: true)
            try sandbox.freezeTree()
        }
        let r = state.rawRef()
        views.refs[owner] = r
        return r
    }

    /// Pushes `ctx`'s user view made in one call into C (the same view as member by member, then
    /// frozen: `UserViewInOneCallTests`); the user's attributes are not copied unless the screen has
    /// parameters. False (nothing pushed) when it cannot be made so.
    private func pushViewInOneCall(_ ctx: ResolutionContext) -> Bool {
        guard let tree = viewTree(ctx) else { return false }
        return state.pushFrozenTree(tree, name: "node")
    }

    /// `ctx`'s user view as one value for `pushFrozenTree` (nil: it cannot be made so).
    func viewTree(_ ctx: ResolutionContext) -> FrozenTree? {
        ctx.params.isEmpty
            ? PluginEngine.frozenView(ctx.user.attributes, profile: ctx.user.attributes["profile"] == nil ? ctx.user.name : nil, device: ctx.deviceAttributes)
            : PluginEngine.frozenView(PluginEngine.viewAttributes(ctx), profile: nil, device: [:])
    }

    /// What a user view holds, in order: the user's attributes, `profile` (the user's name) when
    /// the user has no such attribute, the screen's parameters (`params`, `params.K`, over the
    /// user's attributes of those names), then the device context's attributes the user does
    /// not have (by name).
    static func viewAttributes(_ ctx: ResolutionContext) -> OrderedDictionary<String, JSONValue> {
        var attrs = ctx.user.attributes
        if attrs["profile"] == nil, let n = ctx.user.name { attrs["profile"] = .string(n) }
        if !ctx.params.isEmpty {
            // Rules read the screen's parameters beside the user: `user.params.id`, and as the
            // attribute path `params.id` (what the standard rules look up).
            let sorted = ctx.params.sorted { $0.key < $1.key }
            attrs["params"] = .object(.init(uniqueKeysWithValues: sorted.map { ($0.key, JSONValue.string($0.value)) }))
            for (k, v) in sorted { attrs["params." + k] = .string(v) }
        }
        // The device context (`device`, `orientation`, `traits` and their dotted paths), under
        // the user's own attributes of the same names (the user's win).
        for (k, v) in deviceMembers(ctx.deviceAttributes, under: { attrs[$0] != nil }) { attrs[k] = v }
        return attrs
    }

    /// The device context's attributes a user view adds, by name: those whose name the view
    /// does not already hold (`held`), the user's own attributes winning over the device's.
    /// The one rule `viewAttributes` and `frozenView` share.
    static func deviceMembers(_ device: [String: JSONValue], under held: (String) -> Bool) -> [(key: String, value: JSONValue)] {
        device.isEmpty ? [] : device.sorted(by: { $0.key < $1.key }).filter { !held($0.key) }
    }
}

extension PluginEngine {
    /// A user view as one value for `LuaState.pushFrozenTree`: `attrs` in order, then `profile`
    /// under that name when given, then `device`'s members (by name) that neither holds, as
    /// `viewAttributes` orders them. Nil when a value nests as deep as
    /// `JSONValue.pushDepthLimit` (the member-by-member path then pushes it as nil).
    static func frozenView(_ attrs: OrderedDictionary<String, JSONValue>, profile: String?, device: [String: JSONValue]) -> FrozenTree? {
        let deviceMembers = Self.deviceMembers(device, under: { attrs[$0] != nil || ($0 == "profile" && profile != nil) })
        // Room for the object itself, its members and profile, and the device's (with a level
        // below each): the arrays are made once, not grown.
        var t = FrozenTree(capacity: attrs.count + 2 + deviceMembers.count * 4)
        t.beginObject(nil, count: attrs.count + (profile == nil ? 0 : 1) + deviceMembers.count)
        for (k, v) in attrs { guard add(v, k, to: &t, depth: 1) else { return nil } }
        if let profile { t.add("profile", profile) }
        for (k, v) in deviceMembers { guard add(v, k, to: &t, depth: 1) else { return nil } }
        t.end()
        return t
    }

    /// `attrs` encoded as `frozenView(attrs, profile: nil, device: [:])` encodes it, with the place
    /// of each attribute's member in the tree (its nested members follow it). Nil as `frozenView`.
    static func placedView(_ attrs: OrderedDictionary<String, JSONValue>) -> (tree: FrozenTree, places: [Int])? {
        var t = FrozenTree(capacity: attrs.count + 2)
        var places: [Int] = []
        places.reserveCapacity(attrs.count)
        t.beginObject(nil, count: attrs.count)
        for (k, v) in attrs {
            places.append(t.count)
            guard add(v, k, to: &t, depth: 1) else { return nil }
        }
        t.end()
        return (t, places)
    }

    /// A template element's view as one value: `base` with `scope`'s members over it, as
    /// assigning each of them to a copy of `base` orders them (a key `base` holds keeps its
    /// place; the others follow in `scope`'s order), made from `base` encoded once
    /// (`placedView`): a copy of that tree, each of `scope`'s values for a key `base` holds set
    /// in its place, the others added after. Nil when one of those values or the value it takes
    /// the place of is an array or an object (the caller then encodes the whole view).
    static func frozenView(_ tree: FrozenTree, places: [Int], of base: OrderedDictionary<String, JSONValue>,
                           over scope: OrderedDictionary<String, JSONValue>) -> FrozenTree? {
        var t = tree
        var added: [(key: String, value: JSONValue)] = []
        for (k, v) in scope {
            guard let i = base.index(forKey: k) else {
                added.append((k, v))
                continue
            }
            let at = places[i]
            guard t.isScalar(at: at) else { return nil }
            switch v {
            case .null: t.setNull(at: at)
            case .bool(let b): t.set(at: at, b)
            case .int(let n): t.set(at: at, n)
            case .double(let d): t.set(at: at, d)
            case .string(let s): t.set(at: at, s)
            case .array, .object: return nil
            }
        }
        guard !added.isEmpty else { return t }
        guard t.reopenObject(more: added.count) else { return nil }
        for (k, v) in added { guard add(v, k, to: &t, depth: 1) else { return nil } }
        t.end()
        return t
    }

    /// Adds `v` (a member at `depth` of the member-by-member path); false when it nests too deep.
    private static func add(_ v: JSONValue, _ key: String?, to t: inout FrozenTree, depth: Int) -> Bool {
        switch v {
        case .null: t.addNull(key)
        case .bool(let b): t.add(key, b)
        case .int(let i): t.add(key, i)
        case .double(let d): t.add(key, d)
        case .string(let s): t.add(key, s)
        case .array(let a):
            guard depth < JSONValue.pushDepthLimit else { return false }
            t.beginArray(key, count: a.count)
            for x in a { guard add(x, nil, to: &t, depth: depth + 1) else { return false } }
            t.end()
        case .object(let o):
            guard depth < JSONValue.pushDepthLimit else { return false }
            t.beginObject(key, count: o.count)
            for (k, x) in o { guard add(x, k, to: &t, depth: depth + 1) else { return false } }
            t.end()
        }
        return true
    }
}
