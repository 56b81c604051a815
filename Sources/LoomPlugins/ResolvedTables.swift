import LoomCore
import LuaRuntime
import OrderedCollections

/// The frozen Lua tables of resolved nodes and items handed to wrapper, cluster and collection builders.
extension PluginEngine {
    /// Pushes the frozen table of a resolved node `{ type, id, view, props, meta, action,
    /// children }`, made once per resolution. Its props are made from the JSON the child's
    /// builder returned, never the builder's own table: a parent's builder (of another plugin,
    /// maybe) can neither change nor keep a handle on what the child's plugin made.
    /// Returns a token naming the table when it outlasts the resolution (a single's, or a kept
    /// one, below), nil when it is this resolution's.
    @discardableResult
    func pushResolved(_ n: ResolvedNode, _ data: ResolutionTables) -> Int64? {
        if let r = data.nodeTables[n.serial] {
            pushRef(r)
            return keptTokensResolution === data ? keptTokens[n.serial] : nil
        }
        // A single component's table depends on its node only: made once, kept (frozen).
        let ctx = data.context
        let plain = ctx.params.isEmpty && ctx.boundMeta.isEmpty
        // (Not one with created children: those differ per resolution.)
        // (A styled one by component and style: its output depends on both.)
        var single = false
        var styledKey: StyledKey?
        if plain, n.children.isEmpty, let origin = n.origin {
            if let style = n.resolvedStyle {
                let k = StyledKey(origin, style)
                single = styledSingles[k] != nil
                if single, let r = styledSingleTables[k] {
                    pushRef(r)
                    return Int64(r)
                }
                styledKey = k
            } else {
                single = singleCache[ObjectIdentifier(origin)] != nil
                if single, let r = singleTables[ObjectIdentifier(origin)] {
                    pushRef(r)
                    return Int64(r)
                }
            }
        }
        // Any other node of a lasting component (a stack, a wrapper, …) resolved in a plain
        // resolution: its table is the same as one of the last few made for that component
        // (`keptResolvedVariants`) when its fields are the same, byte for byte, and its
        // children's tables are the same tables (each outlasting its resolution, named by its
        // token): that one is handed over again (frozen: nothing can tell, as with singles'
        // tables), instead of a table made and frozen per resolution.
        let keepable = plain && !single && n.origin?.isLasting == true
        if keepable, let origin = n.origin, let variants = keptResolvedTables[ObjectIdentifier(origin)] {
            // The children's tokens, made once for every variant compared.
            var tokens: [Int64]?
            for kept in variants where kept.sameFields(n) {
                if tokens == nil {
                    let top = state.top
                    var ts: [Int64] = []
                    ts.reserveCapacity(n.children.count)
                    for c in n.children {
                        guard let t = pushResolved(c, data) else { break }
                        ts.append(t)
                    }
                    state.top = top
                    tokens = ts
                }
                if tokens! == kept.children {
                    pushRef(kept.ref)
                    noteKept(kept.token, n, data)
                    return kept.token
                }
                if tokens!.count < n.children.count { break }  // a child's table is this resolution's
            }
        }
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
        if let origin = n.origin, origin.isLasting, ctx.boundMeta[n.serial] == nil {
            pushMeta(origin)
        } else {
            state.push(json: n.meta ?? .object([:]))
        }
        state.setField(-2, "meta")
        if let a = n.action {
            state.push(a)
            state.setField(-2, "action")
        }
        var tokens: [Int64]? = keepable ? [] : nil
        if !n.children.isEmpty {
            state.newTable(narr: Int32(n.children.count))
            for (i, c) in n.children.enumerated() {
                let t = pushResolved(c, data)
                if let t { tokens?.append(t) } else { tokens = nil }
                state.setIndex(-2, i + 1)
            }
            state.setField(-2, "children")
        }
        guard (try? sandbox.freezeTree()) != nil else { return nil }
        state.pushCopy(-1)
        if single, let styledKey {
            let r = state.rawRef()
            styledSingleTables[styledKey] = r
            return Int64(r)
        } else if single {
            let r = state.rawRef()
            singleTables[ObjectIdentifier(n.origin!)] = r
            return Int64(r)
        } else if let tokens, let origin = n.origin {
            let r = state.rawRef()
            let key = ObjectIdentifier(origin)
            keptResolvedTableCount += 1
            let kept = KeptResolvedTable(node: n, children: tokens, ref: r, token: (1 << 32) + keptResolvedTableCount)
            if var variants = keptResolvedTables[key] {
                // The latest first; at most `keptResolvedVariants` a component.
                variants.insert(kept, at: 0)
                if variants.count > PluginEngine.keptResolvedVariants { state.release(rawRef: variants.removeLast().ref) }
                keptResolvedTables[key] = variants
            } else {
                keptResolvedTables[key] = [kept]
                retained.append(origin)
            }
            noteKept(kept.token, n, data)
            return kept.token
        } else {
            data.nodeTables[n.serial] = state.rawRef()
            return nil
        }
    }

    /// How many kept tables of one component (one per distinct content: a stack resolved
    /// differently for a few kinds of users, say), the latest first.
    static let keptResolvedVariants = 8

    /// Notes that node `n`'s table (on the top of the stack) is the kept one named `token`, for
    /// the rest of this resolution: pushed again, it is found at once, token and all.
    private func noteKept(_ token: Int64, _ n: ResolvedNode, _ data: ResolutionTables) {
        if keptTokensResolution !== data {
            keptTokensResolution = data
            keptTokens.removeAll(keepingCapacity: true)
        }
        keptTokens[n.serial] = token
        state.pushCopy(-1)
        data.nodeTables[n.serial] = state.rawRef()
    }

    /// Pushes a component's meta, frozen (made once per component).
    func pushMeta(_ c: Component) {
        if let r = metaRefs[ObjectIdentifier(c)] { return pushRef(r) }
        state.push(json: c.metaValue ?? .object([:]), keepingOrder: true)
        guard (try? sandbox.freezeTree()) != nil else { return }
        state.pushCopy(-1)
        metaRefs[ObjectIdentifier(c)] = state.rawRef()
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
        try sandbox.freezeTree()
        state.pushCopy(-1)
        itemTables[ObjectIdentifier(origin)] = state.rawRef()
        retained.append(origin)
    }
}

/// A resolved node's table kept for its component (`PluginEngine.pushResolved`): the fields it
/// was made from, its children's tokens, its registry reference and its own token (never
/// reused: tokens above 2^32 are kept tables', below are singles' registry references, which
/// are never released).
struct KeptResolvedTable {
    let node: ResolvedNode
    let children: [Int64]
    let ref: Int32
    let token: Int64

    /// Whether `n` makes the same table but for its children (the same component, a plain
    /// resolution: its meta is the component's).
    func sameFields(_ n: ResolvedNode) -> Bool {
        Exact.same(node.type, n.type) && Exact.same(node.id, n.id) && Exact.same(node.view, n.view)
            && Exact.same(node.action, n.action) && node.children.count == n.children.count && Exact.same(node.props, n.props)
    }
}
