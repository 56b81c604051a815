import Foundation
import LoomCore
import LuaRuntime
import OrderedCollections

/// The frozen views of one user (one per plugin, by owner id) for one set of screen parameters
/// and one device context: what `PluginEngine.userView` makes from those three and nothing else.
/// Released with the last resolution or engine cache holding it.
final class UserViewSet {
    let state: LuaState
    let user: UserProfile
    let params: [String: String]
    let device: [String: JSONValue]
    /// Registry references of the views, by owner (plugin) id.
    @exclusivity(unchecked) var refs = OwnerRefs()
    /// Registry references of views' tables made without the view (`PluginEngine.userTable`),
    /// by owner id: a rule call recorded for a memo sees the table through a recording view
    /// only; the plain view is made over the same table when a plain call asks for it.
    @exclusivity(unchecked) var tables = OwnerRefs()
    /// Template elements' views (ScopedUserViews.swift), by plugin and node, each with its node
    /// (held: its identity is not reused while the view is kept). At most `scopedLimit`.
    @exclusivity(unchecked) var scoped: [PluginEngine.ScopedViewKey: (ref: Int32, node: AnyObject)] = [:]
    static let scopedLimit = 4096
    /// What the plain view holds (`PluginEngine.viewAttributes`: a function of the user, the
    /// parameters and the device, as the set is) and the same encoded with the place of each
    /// attribute's member (`PluginEngine.placedView`; nil when a value nests too deep): what the
    /// template elements' views start from. Nil until the first is made.
    @exclusivity(unchecked) var elementBase: (attributes: OrderedDictionary<String, JSONValue>, placed: (tree: FrozenTree, places: [Int])?)?

    init(state: LuaState, context ctx: ResolutionContext) {
        self.state = state
        user = ctx.user
        params = ctx.params
        device = ctx.deviceAttributes
    }

    deinit {
        refs.forEachRef { state.release(rawRef: $0) }
        tables.forEachRef { state.release(rawRef: $0) }
        for (_, v) in scoped { state.release(rawRef: v.ref) }
    }

    /// Releases every template element's view kept (`scopedLimit` reached).
    func dropScoped() {
        for (_, v) in scoped { state.release(rawRef: v.ref) }
        scoped.removeAll()
    }

    /// Whether `ctx` makes exactly these views: the same user name, attributes (in order), screen
    /// parameters and device attributes, compared byte for byte (Swift's `==` takes canonically
    /// equivalent strings, and -0.0 and 0.0, as equal; Lua tells them apart).
    func matches(_ ctx: ResolutionContext) -> Bool {
        Exact.same(user.name, ctx.user.name) && Exact.same(user.attributes, ctx.user.attributes)
            && Exact.same(params, ctx.params) && Exact.same(device, ctx.deviceAttributes)
    }
}

extension PluginEngine {
    /// The user views of resolution `ctx`: with `userViewReuse`, those of an earlier resolution
    /// with the same user, parameters and device (most recently used first; the least recently
    /// used set is dropped beyond `userViewReuse`); otherwise a set of its own.
    func userViewSet(for ctx: ResolutionContext) -> UserViewSet {
        guard userViewReuse > 0 else { return UserViewSet(state: state, context: ctx) }
        if let i = reusedUserViews.firstIndex(where: { $0.matches(ctx) }) {
            let set = reusedUserViews[i]
            if i > 0 {
                reusedUserViews.remove(at: i)
                reusedUserViews.insert(set, at: 0)
            }
            return set
        }
        let set = UserViewSet(state: state, context: ctx)
        reusedUserViews.insert(set, at: 0)
        if reusedUserViews.count > userViewReuse { reusedUserViews.removeLast(reusedUserViews.count - userViewReuse) }
        return set
    }
}

/// Registry references by owner (plugin) id: the first inline, any others in a short list
/// searched in order (a resolution's rules mostly come from one plugin or a few). A set is made
/// per user in a population: a dictionary cost an allocation and a resize on its first entry.
struct OwnerRefs {
    private var firstOwner: Int32 = -1, firstRef: Int32 = 0
    private var more: [(owner: Int32, ref: Int32)] = []

    subscript(owner: Int32) -> Int32? {
        get {
            if firstOwner == owner, owner >= 0 { return firstRef }
            for e in more where e.owner == owner { return e.ref }
            return nil
        }
        set {
            guard let newValue else { preconditionFailure("OwnerRefs: references are only added") }
            if firstOwner == owner, owner >= 0 {
                firstRef = newValue
            } else if let k = more.firstIndex(where: { $0.owner == owner }) {
                more[k].ref = newValue
            } else if firstOwner < 0, owner >= 0 {
                (firstOwner, firstRef) = (owner, newValue)
            } else {
                more.append((owner, newValue))
            }
        }
    }

    /// Calls `body` with every reference held.
    func forEachRef(_ body: (Int32) -> Void) {
        if firstOwner >= 0 { body(firstRef) }
        for e in more { body(e.ref) }
    }
}

extension PluginEngine {
    /// The table behind plugin `owner`'s user view in `ctx`, for a recording view made over it
    /// (`LuaRule.evaluateObserved`), made without the read-only view when the view is not made
    /// yet: a call seen only through a recording view (a narrowed call's context, one call) then
    /// costs no view; a later plain call gets the view over the same table (`userView`). Nil
    /// when the view is made already (the recording view is made over it) or when the table
    /// cannot be made in one call (the view is then made as usual).
    func userTable(_ ctx: ResolutionContext, owner: Int32) -> Int32? {
        guard userViewsInOneCall else { return nil }
        let data = resolutionTables(ctx)
        let views: UserViewSet
        if let v = data.views { views = v } else {
            views = userViewSet(for: ctx)
            data.views = views
        }
        if views.refs[owner] != nil { return nil }
        if let t = views.tables[owner] { return t }
        guard let tree = viewTree(ctx), state.pushFrozenTreeTable(tree, name: "node") else { return nil }
        let t = state.rawRef()
        views.tables[owner] = t
        return t
    }
}

/// Byte-for-byte equality of what a user view is made of.
enum Exact {
    // sameBits(_:_:) (a byte comparison of two values) is in Unsafe.swift.

    static func same(_ a: String?, _ b: String?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (let x?, let y?): return same(x, y)
        default: return false
        }
    }

    static func same(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in x.count == y.count && (x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0) }
        }
    }

    static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.int(let x), .int(let y)): return x == y
        case (.double(let x), .double(let y)): return x.bitPattern == y.bitPattern
        case (.string(let x), .string(let y)): return same(x, y)
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case (.object(let x), .object(let y)): return same(x, y)
        default: return false
        }
    }

    /// Same keys in the same order, same values.
    static func same(_ a: OrderedDictionary<String, JSONValue>, _ b: OrderedDictionary<String, JSONValue>) -> Bool {
        if sameBits(a, b) { return true }
        guard a.count == b.count else { return false }
        for i in 0..<a.count where !same(a.keys[i], b.keys[i]) || !same(a.values[i], b.values[i]) { return false }
        return true
    }

    /// Same keys (each with the same bytes) and values; the order of a Swift dictionary is not
    /// compared (`userView` sorts these).
    static func same(_ a: [String: JSONValue], _ b: [String: JSONValue]) -> Bool {
        sameEntries(a, b) { same($0, $1) }
    }

    static func same(_ a: [String: String], _ b: [String: String]) -> Bool {
        sameEntries(a, b) { same($0, $1) }
    }

    private static func sameEntries<V>(_ a: [String: V], _ b: [String: V], _ sameValue: (V, V) -> Bool) -> Bool {
        if sameBits(a, b) { return true }
        guard a.count == b.count else { return false }
        for (k, v) in a {
            guard let i = b.index(forKey: k), same(b[i].key, k), sameValue(b[i].value, v) else { return false }
        }
        return true
    }
}
