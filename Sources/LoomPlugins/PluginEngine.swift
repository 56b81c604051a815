import Foundation
import LoomCore
import LoomWorkspace
import LuaRuntime
import OrderedCollections

/// Lua plugins feeding one shared factory, in one Lua state. One engine per thread: the state,
/// the factory's builders and every reference belong to the thread that made them.
public final class PluginEngine {
    public let sandbox: Sandbox
    public var state: LuaState { sandbox.state }
    public let factory = Factory()
    public internal(set) var plugins: [LoadedPlugin] = []
    public internal(set) var diagnostics = Diagnostics()
    /// Flows registered with `host.flow`, in registration order.
    public internal(set) var luaFlows: [LuaFlowRegistration] = []
    /// Lines written with `print` / `host.log`: (plugin, line).
    public internal(set) var log: [(String, String)] = []
    public var logToStderr = false

    /// The plugin whose `register` is running (registration is refused otherwise).
    var registering: PluginInfo?
    var registeringFile = ""
    /// Who owns what Lua allocates (memory is capped per owner): one id per plugin folder
    /// loaded, and one per scenario file; index `id - 1` names it.
    public internal(set) var ownerNames: [String] = []

    /// A new owner id for code labelled `label` (a plugin's or a scenario file's).
    public func newOwner(_ label: String) -> Int32 {
        ownerNames.append(label)
        return Int32(ownerNames.count)
    }

    /// Makes `owner` the one Lua allocations are charged to and returns the previous owner
    /// (restore it with `leave`). Calls nest: a scenario's `t:open` runs plugins' rules.
    @inline(__always)
    public func enter(_ owner: Int32) -> Int32 {
        let previous = state.currentOwner
        if previous != owner { state.currentOwner = owner }
        return previous
    }

    @inline(__always)
    public func leave(_ previous: Int32) {
        if state.currentOwner != previous { state.currentOwner = previous }
    }

    // Caches of read-only Lua tables, built once per component / item / rule argument.
    /// Registry references of node tables by component / item identity. They live as long as
    /// the state (no per-call reference counting on the hot path); `retained` keeps the objects
    /// alive so an identity is never reused.
    @exclusivity(unchecked) var nodeRefs = IdentityMap()
    var retained: [AnyObject] = []
    @exclusivity(unchecked) var argRefs: [SourceLocation: Int32] = [:]
    @exclusivity(unchecked) var argsBySubject = IdentityMap()
    @exclusivity(unchecked) var argLists: [[(SourcePosition, Int32)]] = []
    /// Builders are deterministic (a contract): a single component's output depends on its node
    /// only, an item view's on its item only, so both are cached per component / item.
    @exclusivity(unchecked) var singleCache: [ObjectIdentifier: BuildOutput] = [:]
    @exclusivity(unchecked) var itemViewCache: [ObjectIdentifier: BuildOutput] = [:]
    /// Resolved item tables handed to collection builders (frozen; user-independent).
    @exclusivity(unchecked) var itemTables: [ObjectIdentifier: Int32] = [:]
    @exclusivity(unchecked) var singleTables: [ObjectIdentifier: Int32] = [:]
    /// The same for styled singles, by component and resolved style (`NodeStyle.id`): a
    /// single's output, its resolved table and its node table depend on both.
    @exclusivity(unchecked) var styledSingles: [StyledKey: BuildOutput] = [:]
    @exclusivity(unchecked) var styledSingleTables: [StyledKey: Int32] = [:]
    @exclusivity(unchecked) var styledNodeRefs: [StyledKey: Int32] = [:]
    /// Outputs of builders that cannot see their children or items (`LuaComponentBuilder.blind`),
    /// by component, and by component and resolved style.
    @exclusivity(unchecked) var blindOutputs: [ObjectIdentifier: BuildOutput] = [:]
    @exclusivity(unchecked) var styledBlindOutputs: [StyledKey: BuildOutput] = [:]
    /// Frozen `node.style` tables by `NodeStyle.id` (each distinct style pushed once per state).
    @exclusivity(unchecked) var styleRefs: [Int: Int32] = [:]
    @exclusivity(unchecked) var metaRefs: [ObjectIdentifier: Int32] = [:]
    /// Resolved nodes' tables kept across resolutions, by component (a few variants each), and how many were made
    /// (ResolvedTables.swift).
    @exclusivity(unchecked) var keptResolvedTables: [ObjectIdentifier: [KeptResolvedTable]] = [:]
    var keptResolvedTableCount: Int64 = 0
    /// The tokens of the kept tables handed over in resolution `keptTokensResolution` (weak: a
    /// later resolution's tables, even at the same address, never see them), by node serial.
    var keptTokens: [Int: Int64] = [:]
    weak var keptTokensResolution: ResolutionTables?
    var navRef: LuaRef?
    /// The nodes the running builder call creates with `ui.*` (nil outside a builder call).
    var buildScope: BuildScope?
    /// Bench `builder_call` only (BenchmarkSupport.swift): sees each component builder call that
    /// reaches Lua, before it is made. Nil otherwise: one nil check per such call.
    var buildRecorder: ((LuaComponentBuilder, BuildRequest) -> Void)?
    /// `ui.<type>` constructors by type name (one per registered type or alias).
    var uiConstructors: [String: Int32] = [:]
    /// The Lua tables of the resolution running now (see `ResolutionTables`).
    @exclusivity(unchecked) var currentResolution: ResolutionTables?
    /// The rule hot path's cache of the last user view handed out: plain values (no reference
    /// counting), valid while `currentResolution` (which holds the context) is the same.
    @exclusivity(unchecked) var hotContext: ObjectIdentifier?
    @exclusivity(unchecked) var hotOwner: Int32 = -1
    @exclusivity(unchecked) var hotView: Int32 = -1
    /// Whether a user view is made in one call into C (`LuaState.pushFrozenTree`; a value nesting
    /// too deep excepted) rather than member by member and then frozen: the same view either way
    /// (`UserViewInOneCallTests` compares them); off only to compare.
    var userViewsInOneCall = true
    /// How many sets of frozen user views (one set per distinct user, screen parameters and
    /// device context) are kept for later resolutions; 0 (the default): every resolution makes
    /// its own. For callers that resolve for the same few users many times (`host test`).
    public var userViewReuse = 0 {
        didSet { if reusedUserViews.count > userViewReuse { reusedUserViews.removeLast(reusedUserViews.count - userViewReuse) } }
    }
    /// The sets kept, most recently used first (UserViewSets.swift).
    var reusedUserViews: [UserViewSet] = []
    /// The views made of `host eval`'s flat user views (FlatViews.swift).
    let flatViews = FlatViewTables()
    /// Whether rules that only read named fields of the user get a plain view of it in
    /// `host eval` (`LuaRule.isPlain`); off only to compare (`LOOM_EVAL_NO_PLAIN=1`).
    var plainViews = PluginEngine.plainViewsByDefault
    /// `LOOM_EVAL_NO_PLAIN`, read once per process.
    static let plainViewsByDefault = ProcessInfo.processInfo.environment["LOOM_EVAL_NO_PLAIN"] == nil

    public init(limits: LuaLimits = .default) throws(LuaError) {
        sandbox = try Sandbox(limits: limits)
        sandbox.virtualFiles = StandardPlugins.virtualFiles
        sandbox.sharedModules = StandardPlugins.sharedModules
        sandbox.suggestName = { DidYouMean.suggest($0, among: $1) }
        sandbox.logSink = { [unowned self] label, line in
            self.log.append((label, line))
            if self.logToStderr { FileHandle.standardError.write(Data("[\(TextEscape.escaped(label))] \(TextEscape.escaped(line))\n".utf8)) }
        }
    }
}

/// A flow registered with `host.flow`, before the navigation model adopts it.
public struct LuaFlowRegistration {
    public var name: String
    public var spec: JSONValue
    public var navigate: LuaRef?
    public var plugin: PluginInfo
    public var location: SourceLocation
    /// The plugin's owner id (see `PluginEngine.newOwner`).
    public var owner: Int32
}

/// A styled single (or styled node table) by component identity and resolved style.
struct StyledKey: Hashable {
    var component: ObjectIdentifier
    var style: Int
    init(_ c: AnyObject, _ style: NodeStyle) {
        component = ObjectIdentifier(c)
        self.style = style.id
    }
}
