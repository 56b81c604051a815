import Foundation

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

    /// The values, and the line and provenance made when first asked for (a resolution hands
    /// styles to builders and `"style"` outputs; only text output and layout read the others).
    private final class Storage: @unchecked Sendable {
        let names: [String]
        let values: JSONValue
        let id: Int
        private let lock = NSLock()
        private var makeLine: (@Sendable () -> String)?
        private var makeOrigins: (@Sendable () -> [Origin])?
        private var madeLine: String?
        private var madeOrigins: [Origin]?

        init(names: [String], values: JSONValue, id: Int,
             line: @escaping @Sendable () -> String, origins: @escaping @Sendable () -> [Origin]) {
            self.names = names
            self.values = values
            self.id = id
            makeLine = line
            makeOrigins = origins
        }

        var line: String { made(&madeLine, &makeLine) }

        var origins: [Origin] { made(&madeOrigins, &makeOrigins) }

        /// A value made on first use (under the lock; its maker is then dropped).
        private func made<T>(_ value: inout T?, _ make: inout (@Sendable () -> T)?) -> T {
            lock.lock()
            defer { lock.unlock() }
            if let v = value { return v }
            let v = make!()
            value = v
            make = nil
            return v
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
        storage = Storage(names: names, values: values, id: id, line: { line }, origins: { origins })
    }

    /// The same, the line and provenance computed when first read (then kept).
    public init(names: [String], values: JSONValue, id: Int,
                line: @escaping @Sendable () -> String, origins: @escaping @Sendable () -> [Origin]) {
        storage = Storage(names: names, values: values, id: id, line: line, origins: origins)
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
