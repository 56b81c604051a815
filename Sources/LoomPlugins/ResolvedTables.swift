import LoomCore
import LuaRuntime
import OrderedCollections

/// The frozen Lua tables of resolved nodes and items handed to wrapper, cluster and collection builders.
extension PluginEngine {
    /// Pushes the frozen table of a resolved node `{ type, id, view, props, meta, action,
    /// children }`, made once per resolution. Its props are made from the JSON the child's
    /// builder returned, never the builder's own table: a parent's builder (of another plugin,
    /// maybe) can neither change nor keep a handle on what the child's plugin made.
    func pushResolved(_ n: ResolvedNode, _ data: ResolutionTables) {
        if let r = data.nodeTables[n.serial] { return pushRef(r) }
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
                if single, let r = styledSingleTables[k] { return pushRef(r) }
                styledKey = k
            } else {
                single = singleCache[ObjectIdentifier(origin)] != nil
                if single, let r = singleTables[ObjectIdentifier(origin)] { return pushRef(r) }
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
        if !n.children.isEmpty {
            state.newTable(narr: Int32(n.children.count))
            for (i, c) in n.children.enumerated() {
                pushResolved(c, data)
                state.setIndex(-2, i + 1)
            }
            state.setField(-2, "children")
        }
        guard (try? sandbox.freezeTree()) != nil else { return }
        state.pushCopy(-1)
        if single, let styledKey {
            styledSingleTables[styledKey] = state.rawRef()
        } else if single {
            singleTables[ObjectIdentifier(n.origin!)] = state.rawRef()
        } else {
            data.nodeTables[n.serial] = state.rawRef()
        }
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
