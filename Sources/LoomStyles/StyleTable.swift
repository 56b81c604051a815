import LoomCore

/// The styles of one screen's components for one device context, by component serial: built
/// once (through a `StyleCache`), then each resolution reads a component's style by index —
/// what a resolver attaches to its cached tree.
public struct StyleTable: Sendable {
    public let context: DeviceContext
    private var styles: [ResolvedStyle?]
    /// Each style's output shape, computed once (what a node carries as `"style"`).
    private var outputs: [JSONValue?]

    /// `components`: each component's serial, style names (its `style`, else its type's name
    /// when such a style exists) and its type's style schema.
    public init(context: DeviceContext, cache: StyleCache,
                components: [(serial: Int, names: [String], schema: StyleSchema?)]) {
        self.context = context
        let size = (components.map(\.serial).max() ?? -1) + 1
        styles = Array(repeating: nil, count: max(0, size))
        outputs = Array(repeating: nil, count: max(0, size))
        for c in components where c.serial >= 0 && !c.names.isEmpty {
            let r = cache.resolve(names: c.names, context: context, schema: c.schema)
            styles[c.serial] = r
            outputs[c.serial] = r.json
        }
    }

    /// The output shape of the component's style (`ResolvedStyle.json`), if it has one.
    public func json(_ serial: Int) -> JSONValue? {
        serial >= 0 && serial < outputs.count ? outputs[serial] : nil
    }

    /// The style of the component with this serial, if it has one.
    public subscript(serial: Int) -> ResolvedStyle? {
        serial >= 0 && serial < styles.count ? styles[serial] : nil
    }
}
