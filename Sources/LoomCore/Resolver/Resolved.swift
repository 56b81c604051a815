import OrderedCollections

/// A user's attributes (from `users.json`, `--context`, `--now`).
public struct UserProfile: Sendable, Hashable {
    public var name: String?
    public var attributes: OrderedDictionary<String, JSONValue>
    public init(name: String?, attributes: OrderedDictionary<String, JSONValue>) {
        self.name = name
        self.attributes = attributes
    }
}

/// How a rule expression evaluated, for `--explain`.
public struct RuleTrace: Sendable, Hashable {
    public var expression: String
    /// nil when skipped by short-circuit or failed.
    public var value: Bool?
    public var error: String?
    public var skipped: Bool
    public var children: [RuleTrace]
    public var location: SourceLocation

    public var json: JSONValue {
        var o: OrderedDictionary<String, JSONValue> = ["expression": .string(expression)]
        if skipped {
            o["skipped"] = .bool(true)
        } else if let value {
            o["value"] = .bool(value)
        }
        if let error { o["error"] = .string(error) }
        o["location"] = .string(location.description)
        if !children.isEmpty { o["children"] = .array(children.map(\.json)) }
        return .object(o)
    }
}

/// A component resolved for one user.
///
/// What a node shows lives in one shared, immutable storage object, so copying a node (into a
/// parent's children, out of a cache) costs one reference count, not one per field; the
/// per-resolution parts (hidden, why, the rule trace) are stored inline.
public struct ResolvedNode: Sendable {
    final class Storage: Sendable {
        let type: String, id: String?, view: String, props: JSONValue
        let children: [ResolvedNode], items: [ResolvedItem]?
        let action: String?, actionLocation: SourceLocation?, meta: JSONValue?
        let path: String, location: SourceLocation, serial: Int, origin: Component?
        let header: ResolvedNode?, footer: ResolvedNode?, style: JSONValue?, extraMeta: JSONValue?
        let resolvedStyle: NodeStyle?, asItem: ResolvedItem?
        init(type: String, id: String?, view: String, props: JSONValue, children: [ResolvedNode], items: [ResolvedItem]?,
             action: String?, actionLocation: SourceLocation?, meta: JSONValue?, path: String, location: SourceLocation,
             serial: Int, origin: Component?, header: ResolvedNode?, footer: ResolvedNode?, style: JSONValue?,
             extraMeta: JSONValue?, resolvedStyle: NodeStyle? = nil, asItem: ResolvedItem? = nil) {
            self.type = type; self.id = id; self.view = view; self.props = props; self.children = children
            self.items = items; self.action = action; self.actionLocation = actionLocation; self.meta = meta
            self.path = path; self.location = location; self.serial = serial; self.origin = origin
            self.header = header; self.footer = footer; self.style = style; self.extraMeta = extraMeta
            self.resolvedStyle = resolvedStyle
            self.asItem = asItem
        }
        func with(children: [ResolvedNode]? = nil, props: JSONValue? = nil, view: String? = nil, items: [ResolvedItem]?? = nil,
                  origin: Component?? = nil, header: ResolvedNode?? = nil, footer: ResolvedNode?? = nil) -> Storage {
            Storage(type: type, id: id, view: view ?? self.view, props: props ?? self.props, children: children ?? self.children,
                    items: items ?? self.items, action: action, actionLocation: actionLocation, meta: meta, path: path,
                    location: location, serial: serial, origin: origin ?? self.origin, header: header ?? self.header,
                    footer: footer ?? self.footer, style: style, extraMeta: extraMeta, resolvedStyle: resolvedStyle,
                    asItem: asItem)
        }
    }

    var storage: Storage
    /// Set only with `--explain`: the component is hidden (and why).
    public var hidden: Bool = false
    public var hiddenReason: String?
    public var rule: RuleTrace?

    public var type: String { storage.type }
    public var id: String? { storage.id }
    public var view: String {
        get { storage.view }
        set { storage = storage.with(view: newValue) }
    }
    public var props: JSONValue {
        get { storage.props }
        set { storage = storage.with(props: newValue) }
    }
    public var children: [ResolvedNode] {
        get { storage.children }
        set { storage = storage.with(children: newValue) }
    }
    public var items: [ResolvedItem]? {
        get { storage.items }
        set { storage = storage.with(items: .some(newValue)) }
    }
    public var action: String? { storage.action }
    public var actionLocation: SourceLocation? { storage.actionLocation }
    public var meta: JSONValue? { storage.meta }
    public var path: String { storage.path }
    public var location: SourceLocation { storage.location }
    public var serial: Int { storage.serial }
    /// The component this was resolved from.
    public var origin: Component? {
        get { storage.origin }
        set { storage = storage.with(origin: .some(newValue)) }
    }
    /// A collection's resolved header and footer (nil when absent, or hidden and not explained).
    public var header: ResolvedNode? {
        get { storage.header }
        set { storage = storage.with(header: .some(newValue)) }
    }
    public var footer: ResolvedNode? {
        get { storage.footer }
        set { storage = storage.with(footer: .some(newValue)) }
    }
    /// The component's `style` as written (shown when no style applies: a project without
    /// styles, an inline object).
    public var style: JSONValue? { storage.style }
    /// The component's style resolved for the resolution's device (nil when none applies).
    public var resolvedStyle: NodeStyle? { storage.resolvedStyle }
    /// The meta keys the component's type does not declare, as written (each also a warning).
    public var extraMeta: JSONValue? { storage.extraMeta }
    /// Set for a collection's header or footer read as an item (as Spots reads them): the item
    /// it was built as, which output shows as an item.
    public var asItem: ResolvedItem? { storage.asItem }

    public init(type: String, id: String?, view: String, props: JSONValue, children: [ResolvedNode], items: [ResolvedItem]?,
                action: String?, actionLocation: SourceLocation?, meta: JSONValue?, path: String, location: SourceLocation,
                serial: Int, origin: Component? = nil, header: ResolvedNode? = nil, footer: ResolvedNode? = nil,
                style: JSONValue? = nil, extraMeta: JSONValue? = nil, resolvedStyle: NodeStyle? = nil, asItem: ResolvedItem? = nil) {
        storage = Storage(
            type: type, id: id, view: view, props: props, children: children, items: items, action: action,
            actionLocation: actionLocation, meta: meta, path: path, location: location, serial: serial, origin: origin,
            header: header, footer: footer, style: style, extraMeta: extraMeta, resolvedStyle: resolvedStyle, asItem: asItem)
    }

    /// Whether `other` is this very node: the same storage (the same resolution's tree, or a
    /// tree cache hit handing it out again) with the same explain marks. Below the node, shared
    /// storage means the same nodes.
    public func isSameNode(as other: ResolvedNode) -> Bool {
        storage === other.storage && hidden == other.hidden && hiddenReason == other.hiddenReason && rule == other.rule
    }

    /// Visits this node and every node below (header, children, items' nested components, footer).
    public func walk(_ body: (ResolvedNode) -> Void) {
        body(self)
        header?.walk(body)
        for c in children { c.walk(body) }
        for i in items ?? [] { for c in i.children { c.walk(body) } }
        footer?.walk(body)
    }
}

/// An item resolved for one user (storage shared like `ResolvedNode`'s).
public struct ResolvedItem: Sendable {
    final class Storage: Sendable {
        let kind: String?, id: String?, title: String?, view: String, props: JSONValue, action: String?
        let actionLocation: SourceLocation?, children: [ResolvedNode], path: String, location: SourceLocation
        let origin: Item?, size: JSONValue?
        init(kind: String?, id: String?, title: String?, view: String, props: JSONValue, action: String?,
             actionLocation: SourceLocation?, children: [ResolvedNode], path: String, location: SourceLocation, origin: Item?,
             size: JSONValue?) {
            self.kind = kind; self.id = id; self.title = title; self.view = view; self.props = props; self.action = action
            self.actionLocation = actionLocation; self.children = children; self.path = path; self.location = location
            self.origin = origin; self.size = size
        }
        func with(children: [ResolvedNode]? = nil, origin: Item?? = nil, props: JSONValue? = nil) -> Storage {
            Storage(kind: kind, id: id, title: title, view: view, props: props ?? self.props, action: action, actionLocation: actionLocation,
                    children: children ?? self.children, path: path, location: location, origin: origin ?? self.origin,
                    size: size)
        }
    }

    var storage: Storage
    public var hidden: Bool = false
    public var hiddenReason: String?
    public var rule: RuleTrace?

    public var kind: String? { storage.kind }
    public var id: String? { storage.id }
    public var title: String? { storage.title }
    public var view: String { storage.view }
    public var props: JSONValue {
        get { storage.props }
        set { storage = storage.with(props: newValue) }
    }
    public var action: String? { storage.action }
    public var actionLocation: SourceLocation? { storage.actionLocation }
    public var children: [ResolvedNode] {
        get { storage.children }
        set { storage = storage.with(children: newValue) }
    }
    public var path: String { storage.path }
    public var location: SourceLocation { storage.location }
    /// The item this was resolved from.
    public var origin: Item? {
        get { storage.origin }
        set { storage = storage.with(origin: .some(newValue)) }
    }
    /// Spots' item `size` as written.
    public var size: JSONValue? { storage.size }

    public init(kind: String?, id: String?, title: String?, view: String, props: JSONValue, action: String?,
                actionLocation: SourceLocation?, children: [ResolvedNode], path: String, location: SourceLocation,
                origin: Item? = nil, size: JSONValue? = nil) {
        storage = Storage(
            kind: kind, id: id, title: title, view: view, props: props, action: action, actionLocation: actionLocation,
            children: children, path: path, location: location, origin: origin, size: size)
    }
}

/// The outcome of resolving a screen for a user.
public struct Resolution: Sendable {
    public var screen: String
    public var user: UserProfile
    /// nil when the root itself is hidden.
    public var tree: ResolvedNode?
    public var diagnostics: Diagnostics
    /// True when a rule of a node a builder created (`ui.*`) was evaluated: the tree depends on
    /// more than the outcomes of the screen's own rules (outcome-keyed caches must not share it).
    public var evaluatedCreatedRules = false

    /// Every visible navigation action (components and items), in document order. State
    /// actions (`{"increment": "qty"}`, kept as their JSON text) change the screen's state, not
    /// the screen: they lead nowhere and are not among them.
    public var actions: [(action: String, location: SourceLocation?, path: String, gated: Bool)] {
        var out: [(String, SourceLocation?, String, Bool)] = []
        func visit(_ n: ResolvedNode, gated: Bool) {
            if n.hidden { return }
            let g = gated || n.rule != nil
            if let a = n.action, !a.hasPrefix(StateAction.prefix) { out.append((a, n.actionLocation, n.path, g)) }
            if let h = n.header { visit(h, gated: g) }
            for c in n.children { visit(c, gated: g) }
            for i in n.items ?? [] where !i.hidden {
                let ig = g || i.rule != nil
                if let a = i.action, !a.hasPrefix(StateAction.prefix) { out.append((a, i.actionLocation, i.path, ig)) }
                for c in i.children { visit(c, gated: ig) }
            }
            if let f = n.footer { visit(f, gated: g) }
        }
        if let tree { visit(tree, gated: false) }
        return out
    }
}
