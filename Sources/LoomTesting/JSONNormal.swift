import LoomCore
import OrderedCollections

/// JSON helpers: key-sorted normal form and equivalence (numbers by value, objects unordered).
enum JSONNormal {
    static func sorted(_ v: JSONValue) -> JSONValue {
        switch v {
        case .object(let o):
            var out = OrderedDictionary<String, JSONValue>()
            for k in o.keys.sorted() { out[k] = sorted(o[k]!) }
            return .object(out)
        case .array(let a): return .array(a.map(sorted))
        default: return v
        }
    }

    static func equivalent(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.int(let x), .double(let y)), (.double(let y), .int(let x)): return Double(x) == y
        case (.object(let x), .object(let y)):
            guard x.count == y.count else { return false }
            for (k, v) in x {
                guard let w = y[k], equivalent(v, w) else { return false }
            }
            return true
        case (.array(let x), .array(let y)):
            guard x.count == y.count else { return false }
            return zip(x, y).allSatisfy { equivalent($0, $1) }
        default: return a == b
        }
    }

    /// Compact, key-sorted JSON text.
    static func text(_ v: JSONValue) -> String { sorted(v).serialized(pretty: false) }
}

/// The golden file of one `expect_snapshot`: a stable, diff-friendly text of the resolved tree
/// (one node a line, two spaces of indentation per level, `type #id View {sorted props} → action`,
