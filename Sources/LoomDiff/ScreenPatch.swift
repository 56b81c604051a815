import LoomCore

/// A patch file: a JSON list of Spots' mutations, applied in order —
/// `{"component": ID, "append": [items]}`, `"prepend": [items]`,
/// `"insert": {"index": N, "items": [items]}`, `"update": {"index": N, "item": {…}}`,
/// `"delete": {"index": N}` or `{"id": ID}`, and `"reload": [component models]` (the component's
/// children replaced; without `component`, the screen's top-level components).
/// Indices count the items as written in the screen (before any rule hides one).
public struct ScreenPatch: Sendable {
    public enum Operation: Sendable {
        case append([JSONNode])
        case prepend([JSONNode])
        case insert(index: Int, indexAt: SourcePosition, items: [JSONNode])
        case update(index: Int, indexAt: SourcePosition, item: JSONNode)
        case deleteIndex(Int, at: SourcePosition)
        case deleteID(String, at: SourcePosition)
        case reload([JSONNode])

        var name: String {
            switch self {
            case .append: "append"
            case .prepend: "prepend"
            case .insert: "insert"
            case .update: "update"
            case .deleteIndex, .deleteID: "delete"
            case .reload: "reload"
            }
        }
    }

    public struct Step: Sendable {
        public var component: String?
        public var componentAt: SourcePosition?
        public var operation: Operation
        public var at: SourcePosition
    }

    public static let operationNames = ["append", "prepend", "insert", "update", "delete", "reload"]

    public var file: String
    public var steps: [Step]

    /// Reads a patch file (up to `limits`); every problem is located, and a patch with any is
    /// not returned.
    public static func load(_ path: String, limits: FileLimits) -> (ScreenPatch?, Diagnostics) {
        do {
            return parse(try SafeFile.parseJSON(atPath: path, displayPath: path, limits: limits))
        } catch {
            return (nil, Diagnostics([error]))
        }
    }

    public static func parse(_ doc: JSONDocument) -> (ScreenPatch?, Diagnostics) {
        var d = Diagnostics()
        func loc(_ p: SourcePosition) -> SourceLocation { doc.location(p) }
        guard let list = doc.root.array else {
            d.error("a patch is a list of operations ({\"component\": ID, \"append\": [...]}, …), found \(doc.root.kindDescription)", at: loc(doc.root.position))
            return (nil, d)
        }
        var steps: [Step] = []
        for node in list {
            guard let o = node.object else {
                d.error("a patch operation is an object, found \(node.kindDescription)", at: loc(node.position))
                continue
            }
            let ops = o.members.filter { operationNames.contains($0.key) }
            for m in o.members where m.key != "component" && !operationNames.contains(m.key) {
                d.error("unknown key '\(m.key)' in a patch operation\(DidYouMean.hint(m.key, among: operationNames + ["component"]))", at: loc(m.keyPosition))
            }
            guard ops.count == 1, let op = ops.first else {
                d.error(ops.isEmpty ? "a patch operation needs one of \(operationNames.joined(separator: ", "))"
                                    : "a patch operation has one of \(operationNames.joined(separator: ", ")), found \(ops.map(\.key).joined(separator: " and "))",
                        at: loc(node.position))
                continue
            }
            var component: String?
            var componentAt: SourcePosition?
            if let c = o["component"] {
                if let s = c.string, !s.isEmpty { component = s; componentAt = c.position } else {
                    d.error("\"component\" is the id of a component, a non-empty string; found \(c.kindDescription)", at: loc(c.position))
                    continue
                }
            } else if op.key != "reload" {
                d.error("'\(op.key)' needs \"component\": the id of the component whose items change", at: loc(node.position))
                continue
            }
            let v = op.value
            func list(_ n: JSONNode, _ what: String) -> [JSONNode]? {
                if let a = n.array { return a }
                d.error("'\(op.key)' takes a list of \(what), found \(n.kindDescription)", at: loc(n.position))
                return nil
            }
            func index(_ obj: JSONObject, _ key: String = "index") -> (Int, SourcePosition)? {
                guard let n = obj[key] else {
                    d.error("'\(op.key)' needs \"\(key)\"", at: loc(v.position))
                    return nil
                }
                guard let i = n.int, i >= 0 else {
                    d.error("\"\(key)\" is a non-negative integer, found \(n.kindDescription)", at: loc(n.position))
                    return nil
                }
                return (i, n.position)
            }
            var operation: Operation?
            switch op.key {
            case "append": operation = list(v, "items").map { .append($0) }
            case "prepend": operation = list(v, "items").map { .prepend($0) }
            case "reload": operation = list(v, "component models").map { .reload($0) }
            case "insert":
                if let obj = v.object, let (i, at) = index(obj), let its = obj["items"].flatMap({ list($0, "items") }) {
                    operation = .insert(index: i, indexAt: at, items: its)
                } else if v.object == nil {
                    d.error("'insert' takes {\"index\": N, \"items\": [...]}, found \(v.kindDescription)", at: loc(v.position))
                } else if v.object?["items"] == nil {
                    d.error("'insert' needs \"items\"", at: loc(v.position))
                }
            case "update":
                if let obj = v.object, let (i, at) = index(obj), let item = obj["item"] {
                    operation = .update(index: i, indexAt: at, item: item)
                } else if v.object == nil {
                    d.error("'update' takes {\"index\": N, \"item\": {...}}, found \(v.kindDescription)", at: loc(v.position))
                } else if v.object?["item"] == nil {
                    d.error("'update' needs \"item\"", at: loc(v.position))
                }
            default: // delete
                if let obj = v.object, let idNode = obj["id"] {
                    if let s = idNode.string { operation = .deleteID(s, at: idNode.position) } else {
                        d.error("\"id\" is an item's id, a string; found \(idNode.kindDescription)", at: loc(idNode.position))
                    }
                } else if let obj = v.object, let (i, at) = index(obj) {
                    operation = .deleteIndex(i, at: at)
                } else if v.object == nil {
                    d.error("'delete' takes {\"index\": N} or {\"id\": ID}, found \(v.kindDescription)", at: loc(v.position))
                }
            }
            if let operation {
                steps.append(Step(component: component, componentAt: componentAt, operation: operation, at: node.position))
            }
        }
        if d.hasErrors { return (nil, d) }
        return (ScreenPatch(file: doc.file, steps: steps), d)
    }
}
