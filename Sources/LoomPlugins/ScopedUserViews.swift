import LoomCore
import OrderedCollections
import LuaRuntime

/// The user views of template elements (docs/data.md, "Rules that read the element"): a rule on
/// a node a `$each` made reads the user's view with the element's fields added (`r.open`,
/// `r.name`, … for `"as": "r"`), for that node only. One frozen view per plugin and node in a
/// resolution, kept with the resolution's tables and released with them.
extension PluginEngine {
    struct ScopedViewKey: Hashable {
        var owner: Int32
        var serial: Int
        var isItem: Bool
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
        let key: ScopedViewKey
        switch subject {
        case .component(let c): key = ScopedViewKey(owner: owner, serial: c.serial, isItem: false)
        case .item(let i): key = ScopedViewKey(owner: owner, serial: i.serial, isItem: true)
        }
        if let r = tables.scopedViews[key] { return r }
        var attrs = PluginEngine.viewAttributes(ctx)
        for (k, v) in scope { attrs[k] = v }
        // Made in one call into C, as the plain view is (`pushViewInOneCall`: the same frozen
        // view, `ScopedUserViewTests`): pushing it value by value and freezing it with the
        // sandbox's general `freeze` cost most of a data-fed screen's resolution (one view per
        // template element with a rule). The general path remains for a value nesting too deep.
        if !(userViewsInOneCall && PluginEngine.frozenView(attrs, profile: nil, device: [:]).map({ state.pushFrozenTree($0, name: "node") }) == true) {
            state.push(json: .object(attrs), keepingOrder: true)
            try sandbox.freezeTop()
        }
        let r = state.rawRef()
        tables.scopedViews[key] = r
        return r
    }
}
