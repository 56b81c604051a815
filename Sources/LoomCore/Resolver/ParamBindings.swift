import OrderedCollections

/// Meta values bound to the parameters a screen was opened with: `{"$param": "id"}` anywhere
/// in a component's meta stands for `params.id` (a string), substituted at resolution.
public enum ParamBinding {
    public static let key = "$param"

    /// The parameter a value is bound to: the name of `{"$param": "name"}`, else nil.
    public static func name(_ node: JSONNode) -> String? {
        guard case .object(let o) = node.kind, o.members.count == 1, o.members[0].key == key,
            case .string(let name) = o.members[0].value.kind, !name.isEmpty
        else { return nil }
        return name
    }

    /// True when a meta value binds any parameter (at any depth).
    public static func hasBindings(_ node: JSONNode) -> Bool {
        if name(node) != nil { return true }
        switch node.kind {
        case .object(let o): return o.members.contains { hasBindings($0.value) }
        case .array(let a): return a.contains { hasBindings($0) }
        default: return false
        }
    }

    /// A parameter a binding names that the resolution does not have, and where it is written.
    public struct Missing: Sendable, Hashable {
        public var name: String
        public var field: String
        public var position: SourcePosition
    }

    /// The meta with every binding replaced by its parameter's value; the bindings whose
    /// parameter is missing, in document order (their values stay as written).
    public static func substitute(_ node: JSONNode, params: [String: String], field: String = "meta") -> (value: JSONValue, missing: [Missing]) {
        var missing: [Missing] = []
        let v = substitute(node, params, field, &missing)
        return (v, missing)
    }

    private static func substitute(_ node: JSONNode, _ params: [String: String], _ field: String, _ missing: inout [Missing]) -> JSONValue {
        if let n = name(node) {
            if let v = params[n] { return .string(v) }
            missing.append(Missing(name: n, field: field, position: node.position))
            return node.plain
        }
        switch node.kind {
        case .object(let o):
            var out = OrderedDictionary<String, JSONValue>()
            for m in o.members { out[m.key] = substitute(m.value, params, field == "meta" ? m.key : "\(field).\(m.key)", &missing) }
            return .object(out)
        case .array(let a):
            return .array(a.enumerated().map { substitute($0.element, params, "\(field)[\($0.offset + 1)]", &missing) })
        default:
            return node.plain
        }
    }
}

extension ParamBinding {
    /// The parameters a screen's meta binds, sorted (for a check that resolves the screen with
    /// a stand-in value for each).
    public static func names(in screen: Screen) -> [String] {
        var found = Set<String>()
        func visit(_ node: JSONNode) {
            if let n = name(node) { found.insert(n); return }
            switch node.kind {
            case .object(let o): for m in o.members { visit(m.value) }
            case .array(let a): for x in a { visit(x) }
            default: break
            }
        }
        screen.root.walk { c in if let m = c.meta { visit(m) } }
        return found.sorted()
    }
}
