import OrderedCollections

/// The screen formats the host reads.
public enum ScreenFormat: String, Sendable {
    case native, matrioska, spots
}

/// A component as written in a screen file (not yet resolved for anybody).
public final class Component: Sendable {
    public let type: String
    public let typeLocation: SourceLocation
    public let id: String?
    public let idLocation: SourceLocation?
    /// The `meta` object (nil when absent).
    public let meta: JSONNode?
    /// `meta` as a plain value (made once).
    public let metaValue: JSONValue?
    public let children: [Component]
    public let rule: RuleExpression?
    /// True when a `rule` key was present (even if malformed: then the component is hidden).
    public let hasRule: Bool
    public let items: [Item]
    public let hasItems: Bool
    public let layout: JSONNode?
    /// A collection's header and footer: components of their own (rule, type, meta), resolved
    /// with the collection and handed to its builder resolved.
    public let header: Component?
    public let footer: Component?
    public let title: String?
    public let action: String?
    public let actionLocation: SourceLocation?
    /// The `style` key as written (a name, a list of names or an inline object), kept and shown
    /// until styles are resolved.
    public let style: JSONNode?
    /// The `constraints` key as written: a list of constraint strings (docs/layout.md), each
    /// with its location; parsed and checked by the layout pass (nil when absent).
    public let constraints: JSONNode?
    /// Where the component's object starts.
    public let location: SourceLocation
    /// `root/children[1]/children[0]`.
    public let path: String
    /// A number unique within the screen, in document order (a node a builder created has one
    /// past the screen's, unique within its resolution).
    public let serial: Int
    /// Set when a builder created this node with `ui.*` (nil for a screen file's components).
    public let creation: Creation?
    /// A collection's header or footer read as Spots reads it: an Item (`title`, `subtitle`,
    /// `kind`, …) whose `kind` names an item view. Set for a header or footer that can be read
    /// that way; `readsAsItem` says which reading applies (docs/screens.md, "Header and footer").
    public let itemForm: Item?
    /// True when the header or footer can only be an item (it has item keys such as `subtitle`
    /// or no type at all); false when it could also be a component (`type`/`kind`, `meta`, …).
    public let isItemOnly: Bool
    /// A template element's node: the element's fields as attributes its rule reads beside the
    /// user's (`r.open` for `"as": "r"`; docs/data.md). Nil for every other node.
    public let scope: OrderedDictionary<String, JSONValue>?
    /// Where each bound value of a data-fed node came from (`TemplateExpander.boundKey`): the
    /// field as written (`meta.text`) → its source (`restaurants[2].name`, `state.qty`,
    /// `params.id`, or an expression with the sources it read), shown by `--explain`. Nil
    /// for a node without bindings.
    public let bindings: OrderedDictionary<String, String>?
    /// What a client that cannot render this type gets instead (`"fallback"`, docs/clients.md):
    /// another component, or nothing (`"drop"`). Nil when the screen writes none.
    public let fallback: Fallback?

    public init(
        type: String, typeLocation: SourceLocation, id: String?, idLocation: SourceLocation?, meta: JSONNode?,
        children: [Component], rule: RuleExpression?, hasRule: Bool, items: [Item], hasItems: Bool,
        layout: JSONNode?, header: Component?, footer: Component?, title: String?, action: String?,
        actionLocation: SourceLocation?, style: JSONNode?, location: SourceLocation, path: String, serial: Int,
        constraints: JSONNode? = nil, creation: Creation? = nil, itemForm: Item? = nil, isItemOnly: Bool = false,
        scope: OrderedDictionary<String, JSONValue>? = nil, bindings: OrderedDictionary<String, String>? = nil, fallback: Fallback? = nil
    ) {
        self.bindings = bindings
        self.fallback = fallback
        self.type = type
        self.typeLocation = typeLocation
        self.id = id
        self.idLocation = idLocation
        self.meta = meta
        self.metaValue = meta?.plain
        self.children = children
        self.rule = rule
        self.hasRule = hasRule
        self.items = items
        self.hasItems = hasItems
        self.layout = layout
        self.header = header
        self.footer = footer
        self.title = title
        self.action = action
        self.actionLocation = actionLocation
        self.style = style
        self.constraints = constraints
        self.location = location
        self.path = path
        self.serial = serial
        self.creation = creation
        self.itemForm = itemForm
        self.isItemOnly = isItemOnly
        self.scope = scope
    }

    /// The item this header or footer is read as, or nil when it is a component: an item when
    /// it can only be one, or when its `type`/`kind` names no registered component type (then
    /// it names an item view, as in Spots, or nothing: `ScreenChecker` reports it).
    public func readsAsItem(_ factory: Factory) -> Item? {
        guard let itemForm else { return nil }
        return isItemOnly || factory.componentRegistration(type) == nil ? itemForm : nil
    }

    /// This component and all below it, depth first (header, children, items' nested
    /// components, footer).
    public func walk(_ body: (Component) -> Void) {
        body(self)
        header?.walk(body)
        for c in children { c.walk(body) }
        for i in items { for c in i.children { c.walk(body) } }
        footer?.walk(body)
    }
}

extension RuleSubject {
    /// The template element a rule of this subject reads beside the user (nil: none).
    public var scope: OrderedDictionary<String, JSONValue>? {
        switch self {
        case .component(let c): return c.scope
        case .item(let i): return i.scope
        }
    }
}

/// A component's `"fallback"`: shown instead when the user's client cannot render its type.
public enum Fallback: Sendable {
    /// A component of its own (own `id`), shown in the node's place, under the node's rule.
    case component(Component)
    /// Nothing is shown, and no warning is given.
    case drop
}

/// A Spots-style item of a collection.
public final class Item: Sendable {
    public let id: String?
    public let title: String?
    public let subtitle: String?
    public let text: String?
    public let image: String?
    public let kind: String?
    public let kindLocation: SourceLocation?
    public let action: String?
    public let actionLocation: SourceLocation?
    public let meta: JSONNode?
    /// Spots' item `size` (`{"width", "height"}`) as written: handed to item views and kept in output.
    public let size: JSONNode?
    public let rule: RuleExpression?
    public let hasRule: Bool
    public let children: [Component]
    public let location: SourceLocation
    public let path: String
    public let serial: Int
    /// The props of the default item view: the item's own fields (made once).
    public let defaultProps: JSONValue
    /// A template element's item: the element's fields as attributes its rule reads (see `Component.scope`).
    public let scope: OrderedDictionary<String, JSONValue>?
    /// Where each bound value came from (see `Component.bindings`).
    public let bindings: OrderedDictionary<String, String>?

    public init(
        id: String?, title: String?, subtitle: String?, text: String?, image: String?, kind: String?,
        kindLocation: SourceLocation?, action: String?, actionLocation: SourceLocation?, meta: JSONNode?,
        size: JSONNode? = nil, rule: RuleExpression?, hasRule: Bool, children: [Component], location: SourceLocation,
        path: String, serial: Int, scope: OrderedDictionary<String, JSONValue>? = nil,
        bindings: OrderedDictionary<String, String>? = nil
    ) {
        self.bindings = bindings
        self.id = id
        self.title = title
        self.subtitle = subtitle
        self.text = text
        self.image = image
        self.kind = kind
        self.kindLocation = kindLocation
        self.action = action
        self.actionLocation = actionLocation
        self.meta = meta
        self.size = size
        self.rule = rule
        self.hasRule = hasRule
        self.children = children
        self.location = location
        self.path = path
        self.serial = serial
        self.scope = scope
        var o: OrderedDictionary<String, JSONValue> = [:]
        if let t = title { o["title"] = .string(t) }
        if let s = subtitle, !s.isEmpty { o["subtitle"] = .string(s) }
        if let t = text { o["text"] = .string(t) }
        if let i = image, !i.isEmpty { o["image"] = .string(i) }
        if let m = meta?.plain, case .object(let mo) = m, !mo.isEmpty { o["meta"] = m }
        defaultProps = .object(o)
    }
}

/// A screen file, parsed.
public struct Screen: Sendable {
    /// The screen's id (`screen` in native files, else the file name without `.json`).
    public var id: String
    public var file: String
    public var format: ScreenFormat
    public var root: Component
    /// Number of components and items (for caches sized per screen).
    public var serialCount: Int
    /// A native screen's `title` and `description` (shown by `host run`).
    public var title: JSONValue?
    public var description: JSONValue?

    public init(id: String, file: String, format: ScreenFormat, root: Component, serialCount: Int,
                title: JSONValue? = nil, description: JSONValue? = nil) {
        self.id = id
        self.file = file
        self.format = format
        self.root = root
        self.serialCount = serialCount
        self.title = title
        self.description = description
    }

    /// The component with this id, if any.
    public func component(id: String) -> Component? {
        var found: Component?
        root.walk { c in if found == nil, c.id == id { found = c } }
        return found
    }
}
