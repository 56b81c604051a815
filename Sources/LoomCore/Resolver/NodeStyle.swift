/// A component's resolved style, as the resolver hands it on (to builders as `node.style`, to
/// output as `"style"`): computed outside the core (the `LoomStyles` module, through
/// `ResolutionContext.styleFor`), so the core only carries it.
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

    /// The style names applied, in order (later winning).
    public var names: [String]
    /// `{key: value}` in the output shapes of docs/styles.md.
    public var values: JSONValue
    /// `key=value key=value`, the line text output shows under the node.
    public var line: String
    /// Per key, in key order (shown by `--explain`).
    public var origins: [Origin]
    /// Tells resolved styles apart cheaply (unique per workspace for each names, type and device
    /// context): builders' outputs are cached by component and this.
    public var id: Int

    public init(names: [String], values: JSONValue, line: String, origins: [Origin], id: Int = 0) {
        self.names = names
        self.values = values
        self.line = line
        self.origins = origins
        self.id = id
    }
}
