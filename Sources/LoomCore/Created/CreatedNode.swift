/// A node a builder created with `ui.*` (docs/plugin-api.md, "Creating nodes: ui.*"): what the
/// Lua call wrote and where, as plain values. Builders' outputs carry these (and are cached like
/// any output); the resolver turns them into `Component`s each resolution.
public struct CreatedNode: Sendable, Hashable {
    /// The component type (or alias) it names.
    public var type: String
    /// The `ui.*` call: `plugins/x/plugin.lua:12:1` (column 1: Lua reports lines only).
    public var location: SourceLocation
    public var id: String?
    /// `rule` as in screen JSON: a rule name, a rule object or an AND / OR / NOT expression.
    public var rule: JSONValue?
    public var style: JSONValue?
    /// A list of constraint strings, kept as written (docs/layout.md).
    public var constraints: JSONValue?
    public var action: String?
    /// The meta object: `meta = {…}` plus every other named field of the call (`title` too:
    /// what the standard builders read is `meta.title`).
    public var meta: JSONValue?
    public var children: [BuiltChild]

    public init(
        type: String, location: SourceLocation, id: String? = nil, rule: JSONValue? = nil, style: JSONValue? = nil,
        constraints: JSONValue? = nil, action: String? = nil, meta: JSONValue? = nil,
        children: [BuiltChild] = []
    ) {
        self.type = type
        self.location = location
        self.id = id
        self.rule = rule
        self.style = style
        self.constraints = constraints
        self.action = action
        self.meta = meta
        self.children = children
    }
}

/// One child a builder returned: one of those it was given (by index), or a node it created.
public enum BuiltChild: Sendable, Hashable {
    case given(Int)
    case created(CreatedNode)
}

/// How a created node came to be: how deep it sits among created nodes (1: created by a screen
/// component's builder) and which type's builder created it.
public struct Creation: Sendable, Hashable {
    public var depth: Int
    public var builder: String
    /// Kept by a resolution cache: the same object in every resolution that creates it, so it
    /// may be a key of caches by identity. False: made for one resolution only.
    public var shared: Bool
    public init(depth: Int, builder: String, shared: Bool = false) {
        self.depth = depth
        self.builder = builder
        self.shared = shared
    }
}

extension Component {
    /// True when the object is the same in every resolution (a screen file's component, or a
    /// created node a resolution cache keeps): caches by identity may hold it.
    @inline(__always)
    public var isLasting: Bool { creation?.shared ?? true }
}

/// The bounds on created nodes: a resolution never hangs or overflows its stack on a builder
/// that creates itself (`card` returning `ui.card{}`).
public enum CreatedNodeLimits {
    /// Levels of created nodes below the screen component whose builder created the first
    /// (nesting within one `ui.*` call counts, as does a created node's builder creating more).
    public static let maxDepth = 16
    /// Created nodes in one resolution.
    public static let maxCount = 10_000
}

extension JSONNode {
    /// A plain value as a node whose every part sits at `position` (created nodes' values: all
    /// diagnostics about them point at their `ui.*` call).
    public static func at(_ position: SourcePosition, _ value: JSONValue) -> JSONNode {
        switch value {
        case .null: return JSONNode(.null, at: position)
        case .bool(let b): return JSONNode(.bool(b), at: position)
        case .int(let i): return JSONNode(.int(i), at: position)
        case .double(let d): return JSONNode(.double(d), at: position)
        case .string(let s): return JSONNode(.string(s), at: position)
        case .array(let a): return JSONNode(.array(a.map { at(position, $0) }), at: position)
        case .object(let o):
            return JSONNode(
                .object(JSONObject(o.map { JSONObject.Member(key: $0.key, keyPosition: position, value: at(position, $0.value)) })),
                at: position)
        }
    }
}
