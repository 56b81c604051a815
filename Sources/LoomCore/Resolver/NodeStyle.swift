/// A component's resolved style, as the resolver hands it on (to builders as `node.style`, to
/// output as `"style"`): computed outside the core (the `LoomStyles` module, through
/// `ResolutionContext.styleFor`), so the core only carries it. One shared box per distinct
/// style: a 1,000-component screen copies a reference, not the values, per component.
public struct NodeStyle: Sendable, Hashable {
    /// One key's provenance: the `file:line` that won and those it overrode (first applied first).
    public struct Origin: Sendable, Hashable {
        public var key: String
        public var from: String
        public var overrode: [String]
        public init(key: String, from: String, overrode: [String]) {
            self.key = key
            self.from = from
            self.overrode = overrode
        }
    }

    private final class Storage: Sendable {
        let names: [String]
        let values: JSONValue
        let line: String
        let origins: [Origin]
        let id: Int
        init(names: [String], values: JSONValue, line: String, origins: [Origin], id: Int) {
            self.names = names
            self.values = values
            self.line = line
            self.origins = origins
            self.id = id
        }
    }

    private let storage: Storage

    /// The style names applied, in order (later winning).
    public var names: [String] { storage.names }
    /// `{key: value}` in the output shapes of docs/styles.md.
    public var values: JSONValue { storage.values }
    /// `key=value key=value`, the line text output shows under the node.
    public var line: String { storage.line }
    /// Per key, in key order (shown by `--explain`).
    public var origins: [Origin] { storage.origins }
    /// Tells resolved styles apart cheaply (unique per workspace for each names, type and device
    /// context): builders' outputs are cached by component and this.
    public var id: Int { storage.id }

    public init(names: [String], values: JSONValue, line: String, origins: [Origin], id: Int = 0) {
        storage = Storage(names: names, values: values, line: line, origins: origins, id: id)
    }

    public static func == (a: NodeStyle, b: NodeStyle) -> Bool {
        a.storage === b.storage
            || (a.id == b.id && a.names == b.names && a.values == b.values && a.line == b.line && a.origins == b.origins)
    }

    public func hash(into h: inout Hasher) {
        h.combine(id)
        h.combine(names)
        h.combine(line)
    }
}
