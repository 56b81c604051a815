/// Who registered something.
public struct PluginInfo: Sendable, Hashable {
    public var name: String
    public var version: String
    /// The plugin's folder (display path) or `<builtin>`.
    public var folder: String
    public init(name: String, version: String, folder: String) {
        self.name = name
        self.version = version
        self.folder = folder
    }
    public static let host = PluginInfo(name: "host", version: LoomVersion.string, folder: "<host>")
}

public enum LoomVersion {
    public static let string = "0.1.0"
    /// The Lua plugin API major version.
    public static let pluginAPI = 1
}

public enum ComponentKind: String, Sendable, Hashable, CaseIterable {
    case single, wrapper, cluster, collection
}

/// A component builder, implemented by the plugin bridge (Lua) or the host itself.
public protocol ComponentBuilding: AnyObject {
    func build(_ request: BuildRequest) -> Result<BuildOutput, BuildFailure>
}

/// An item view builder.
public protocol ItemBuilding: AnyObject {
    func build(_ item: Item, context: ResolutionContext) -> Result<BuildOutput, BuildFailure>
}

/// A rule evaluator.
public protocol RuleEvaluating: AnyObject {
    /// Load-time argument check: messages describing what is wrong (empty when fine).
    func check(args: JSONNode?, file: String) -> [String]
    /// `location` is the rule reference's place in its screen (a stable key for argument caches).
    func evaluate(args: JSONNode?, at location: SourceLocation, subject: RuleSubject, context: ResolutionContext) -> Result<Bool, BuildFailure>
}

/// A rule whose reads of the user can be observed (Lua rules): `host eval` reuses its answer for
/// every user who agrees on what it read (rules are deterministic: PRODUCT.md, "Sandbox").
public protocol ObservableRule: RuleEvaluating {
    /// `evaluate`, handing the rule a view of the user that logs its reads. `reads`: the user
    /// attributes it read, in first-read order; nil when the answer may depend on anything else
    /// (it iterated the user, logged a line, failed, or its reads could not be told).
    func evaluateObserved(args: JSONNode?, at location: SourceLocation, subject: RuleSubject,
                          context: ResolutionContext) -> (result: Result<Bool, BuildFailure>, reads: [String]?)
}

/// What a rule guards.
public enum RuleSubject {
    case component(Component)
    case item(Item)
}

public struct BuildRequest {
    public var component: Component
    public var children: [ResolvedNode]
    public var items: [ResolvedItem]
    public var context: ResolutionContext
    /// A collection's resolved header and footer (nil when absent or hidden).
    public var header: ResolvedNode? = nil
    public var footer: ResolvedNode? = nil
}

public struct BuildOutput: Sendable {
    public var view: String
    public var props: JSONValue
    /// The children the builder returned, when it returned `children`: those it was given (a
    /// subset or an order) and nodes it created with `ui.*`, in its order. nil: the children
    /// given, as given.
    public var children: [BuiltChild]?
    /// Indices into the children given, when the builder chose a subset or an order (and
    /// created none).
    public var childOrder: [Int]? {
        children?.compactMap { if case .given(let i) = $0 { i } else { nil } }
    }
    public init(view: String, props: JSONValue, childOrder: [Int]? = nil) {
        self.view = view
        self.props = props
        self.children = childOrder?.map { .given($0) }
    }
    public init(view: String, props: JSONValue, children: [BuiltChild]?) {
        self.view = view
        self.props = props
        self.children = children
    }
}

public struct BuildFailure: Error, Sendable {
    public var message: String
    /// The script location the failure points at (`file:line`), when known.
    public var scriptLocation: String?
    /// The plugin function was not called: it already exceeded a time or memory limit earlier
    /// in the same resolution (fail closed, reported once: the resolver counts these instead of
    /// reporting each).
    public var notCalledAgain: Bool
    public init(_ message: String, scriptLocation: String? = nil, notCalledAgain: Bool = false) {
        self.message = message
        self.scriptLocation = scriptLocation
        self.notCalledAgain = notCalledAgain
    }
}

/// A registered component type (a class: looked up for every component resolved).
public final class ComponentRegistration {
    public var type: String
    public var kind: ComponentKind
    public var plugin: PluginInfo
    public var location: SourceLocation
    public var meta: MetaSchema?
    public var openMeta: Bool
    public var renamed: [String: String]
    public var childMeta: MetaSchema?
    public var aliases: [String]
    public var itemView: String
    public var description: String?
    /// The declared schema of a collection's `layout` (`options.layout`).
    public var layout: ArgumentSchema?
    /// The declared types of its style keys (`options.style`: key → type name, sorted by key);
    /// nil when it declares none (values are typed by their form, without warnings).
    public var styleTypes: [(key: String, type: String)]?
    /// `options.open_style`: keys outside `styleTypes` are typed by their form without a warning
    /// (as `open_meta` does for meta); false: they warn and pass through as JSON.
    public var openStyle = false
    /// How the component takes part in layout (`options.layout_as`, one of `layoutRoles`); nil:
    /// from its kind (docs/layout.md).
    public var layoutAs: String?
    /// The values `options.layout_as` takes.
    public static let layoutRoles = ["label", "button", "image", "view", "stack", "vstack", "hstack", "container", "tab_bar", "navigation", "collection"]
    public var builder: any ComponentBuilding

    public init(
        type: String, kind: ComponentKind, plugin: PluginInfo, location: SourceLocation, meta: MetaSchema? = nil,
        openMeta: Bool = false, renamed: [String: String] = [:], childMeta: MetaSchema? = nil, aliases: [String] = [],
        itemView: String = "ItemView", description: String? = nil, layout: ArgumentSchema? = nil, builder: any ComponentBuilding
    ) {
        self.type = type
        self.kind = kind
        self.plugin = plugin
        self.location = location
        self.meta = meta
        self.openMeta = openMeta
        self.renamed = renamed
        self.childMeta = childMeta
        self.aliases = aliases
        self.itemView = itemView
        self.description = description
        self.layout = layout
        self.builder = builder
    }
}

public final class ItemRegistration {
    public var kind: String
    public var plugin: PluginInfo
    public var location: SourceLocation
    public var builder: any ItemBuilding
    public init(kind: String, plugin: PluginInfo, location: SourceLocation, builder: any ItemBuilding) {
        self.kind = kind
        self.plugin = plugin
        self.location = location
        self.builder = builder
    }
}

public final class RuleRegistration {
    public var name: String
    public var plugin: PluginInfo
    public var location: SourceLocation
    public var description: String?
    /// The declared argument schema (`options.args`): the host checks arguments against it.
    public var arguments: ArgumentSchema?
    /// The declared examples (`options.examples`).
    public var examples: [RuleExample]
    public var evaluator: any RuleEvaluating
    public init(
        name: String, plugin: PluginInfo, location: SourceLocation, description: String? = nil,
        arguments: ArgumentSchema? = nil, examples: [RuleExample] = [], evaluator: any RuleEvaluating
    ) {
        self.name = name
        self.plugin = plugin
        self.location = location
        self.description = description
        self.arguments = arguments
        self.examples = examples
        self.evaluator = evaluator
    }
}

/// The one shared factory every plugin registers into.
/// A data provider a plugin registered (`host.data(NAME, function(ctx) … end)`): called with
/// the user, the screen's parameters and `now`, sandboxed like rules; its answer is a data
/// source's value (docs/data.md).
public protocol DataProviding: AnyObject {
    func provide(user: UserProfile, params: [String: String]) -> Result<JSONValue, Diagnostic>
}

public struct DataProviderRegistration {
    public var name: String
    public var plugin: PluginInfo
    public var location: SourceLocation
    public var provider: any DataProviding
    public init(name: String, plugin: PluginInfo, location: SourceLocation, provider: any DataProviding) {
        self.name = name
        self.plugin = plugin
        self.location = location
        self.provider = provider
    }
}

public final class Factory {
    /// The project's clients.json (docs/clients.md): when set, every resolution gives the user
    /// the screen their client can render (`ClientVariant`).
    public var clients: ClientTable?
    /// The subjects of flows' `when` rules (`RuleDecision`), one per rule place, reused by
    /// every decision: a plugin engine keeps what it makes for a subject (its frozen node
    /// table) for as long as the object lives, so a new subject per decision grew memory with
    /// every user a population run explores a graph for.
    var decisionSubjects: [SourceLocation: Component] = [:]
    public private(set) var components: [String: ComponentRegistration] = [:]
    /// Alias → canonical type.
    public private(set) var aliases: [String: String] = [:]
    public private(set) var items: [String: ItemRegistration] = [:]
    public private(set) var rules: [String: RuleRegistration] = [:]
    /// Registration order, for listings.
    public private(set) var order: [(kind: String, name: String)] = []
    /// Data providers (`host.data`), by source name (docs/data.md).
    public private(set) var dataProviders: [String: DataProviderRegistration] = [:]

    public init() {}

    public func register(_ r: DataProviderRegistration) throws(Diagnostic) {
        if let existing = dataProviders[r.name] {
            throw .error(duplicate("data provider", r.name, existing.plugin, existing.location, r.plugin), at: r.location)
        }
        dataProviders[r.name] = r
    }

    private func duplicate(_ what: String, _ name: String, _ first: PluginInfo, _ firstLoc: SourceLocation, _ second: PluginInfo) -> String {
        "\(what) '\(name)' is already registered by plugin \(first.name) (\(firstLoc)); plugin \(second.name) cannot register it again"
    }

    public func register(_ r: ComponentRegistration) throws(Diagnostic) {
        for name in [r.type] + r.aliases {
            if let existing = componentRegistration(name) {
                throw .error(duplicate("component type", name, existing.plugin, existing.location, r.plugin), at: r.location)
            }
        }
        components[r.type] = r
        for a in r.aliases { aliases[a] = r.type }
        order.append(("component", r.type))
    }

    public func register(_ r: ItemRegistration) throws(Diagnostic) {
        if let existing = items[r.kind] {
            throw .error(duplicate("item kind", r.kind, existing.plugin, existing.location, r.plugin), at: r.location)
        }
        items[r.kind] = r
        order.append(("item", r.kind))
    }

    public func register(_ r: RuleRegistration) throws(Diagnostic) {
        if let existing = rules[r.name] {
            throw .error(duplicate("rule", r.name, existing.plugin, existing.location, r.plugin), at: r.location)
        }
        rules[r.name] = r
        order.append(("rule", r.name))
    }

    /// Removes everything a plugin registered (a plugin whose `register` failed).
    public func removeRegistrations(of plugin: String) {
        for (k, r) in components where r.plugin.name == plugin {
            components[k] = nil
            for a in r.aliases { aliases[a] = nil }
        }
        for (k, r) in items where r.plugin.name == plugin { items[k] = nil }
        for (k, r) in rules where r.plugin.name == plugin { rules[k] = nil }
        for (k, r) in dataProviders where r.plugin.name == plugin { dataProviders[k] = nil }
        order.removeAll { entry in
            switch entry.kind {
            case "component": return components[entry.name] == nil
            case "item": return items[entry.name] == nil
            default: return rules[entry.name] == nil
            }
        }
    }

    /// The registration for a type or one of its aliases.
    public func componentRegistration(_ type: String) -> ComponentRegistration? {
        if let r = components[type] { return r }
        if let canonical = aliases[type] { return components[canonical] }
        return nil
    }

    public var allTypeNames: [String] { Array(components.keys) + Array(aliases.keys) }
}
