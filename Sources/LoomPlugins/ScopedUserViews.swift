import LoomCore
import OrderedCollections
import LuaRuntime

/// The user views of template elements (docs/data.md, "Rules that read the element"): a rule on
/// a node a `$each` made reads the user's view with the element's fields added (`r.open`,
/// `r.name`, … for `"as": "r"`), for that node only. One frozen view per plugin and node, kept
/// with the user's views (`UserViewSet`): reused by every resolution that reuses those views
/// (the same user, parameters and device: what the view is made of besides the node's own
/// element), released with them.
extension PluginEngine {
    /// A plugin and a node (a component or an item) by identity: the set holds the node while it
    /// keeps its view, so the identity is not reused by another node (serials are per screen).
    struct ScopedViewKey: Hashable {
        var owner: Int32
        var node: ObjectIdentifier
    }

    /// The view a rule of `subject` sees: the plain user view, or, for a template element's
    /// node, that view with the element's attributes over it.
    @inline(__always)
    func userRef(_ ctx: ResolutionContext, owner: Int32, subject: RuleSubject) throws(LuaError) -> Int32 {
        guard let scope = subject.scope else { return try userRef(ctx, owner: owner) }
        return try scopedUserRef(ctx, owner: owner, subject: subject, scope: scope)
    }

    @inline(never)
    func scopedUserRef(_ ctx: ResolutionContext, owner: Int32, subject: RuleSubject, scope: OrderedDictionary<String, JSONValue>) throws(LuaError) -> Int32 {
        let tables = resolutionTables(ctx)
        let views: UserViewSet
        if let v = tables.views { views = v } else {
            views = userViewSet(for: ctx)
            tables.views = views
        }
        let node: AnyObject
        switch subject {
        case .component(let c): node = c
        case .item(let i): node = i
        }
        let key = ScopedViewKey(owner: owner, node: ObjectIdentifier(node))
        if let kept = views.scoped[key] { return kept.ref }
        // Bounded: screens expanded anew for each request (data in the request) make new nodes
        // each time; past the limit the kept views go (no call holds one between calls).
        if views.scoped.count >= UserViewSet.scopedLimit { views.dropScoped() }
        // The plain view's attributes, made and encoded once per set of views (not per element).
        if views.elementBase == nil {
            let attrs = PluginEngine.viewAttributes(ctx)
            views.elementBase = (attrs, PluginEngine.placedView(attrs))
        }
        let (base, placed) = views.elementBase!
        // What assigning each of the element's fields to a copy of `base` makes (the views that
        // cannot start from `placed`: a value nesting too deep, an array or object in place of
        // another value).
        func assigned() -> OrderedDictionary<String, JSONValue> {
            var attrs = base
            for (k, v) in scope { attrs[k] = v }
            return attrs
        }
        // Made in one call into C, as the plain view is (`pushViewInOneCall`: the same frozen
        // view, `ScopedUserViewTests`): pushing it value by value and freezing it with the
        // sandbox's general `freeze` cost most of a data-fed screen's resolution (one view per
        // template element with a rule). The general path remains for a value nesting too deep.
        let tree = placed.flatMap { PluginEngine.frozenView($0.tree, places: $0.places, of: base, over: scope) }
            ?? PluginEngine.frozenView(assigned(), profile: nil, device: [:])
        if !(userViewsInOneCall && tree.map({ state.pushFrozenTree($0, name: "node") }) == true) {
            let attrs = assigned()
            state.push(json: .object(attrs), keepingOrder: true)
            try sandbox.freezeTop()
        }
        let r = state.rawRef()
        views.scoped[key] = (r, node)
        return r
    }
}
