import LoomCore

/// The old and new values of an update's fields, for `host watch`:
/// `props.text: "Hi" → "Hey there"`.
public enum ChangeValues {
    /// Values longer than this (as compact JSON) are cut, ending in `…`.
    public static let maxValueCharacters = 120

    /// One line per changed field of an update (hard or soft), `field: old → new`, each value
    /// as compact JSON (`(none)` when absent), the whole line through `TextEscape` (values come
    /// from the project: a control character prints as `\u{1B}`). Empty for other changes.
    /// `old` and `new` are the trees the change was computed from.
    public static func lines(for change: TreeChange, old: JSONValue?, new: JSONValue?) -> [String] {
        guard change.change == .hard || change.change == .soft else { return [] }
        let before = old.flatMap { node(at: change.oldPath ?? change.path, in: $0) }
        let after = new.flatMap { node(at: change.path, in: $0) }
        return change.fields.map { f in
            TextEscape.escaped("\(f): \(text(value(f, of: before))) → \(text(value(f, of: after)))")
        }
    }

    /// The node at a path of `TreeChange` (`root/children[0]/items[2]/header`), if any.
    static func node(at path: String, in tree: JSONValue) -> JSONValue? {
        var parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard !parts.isEmpty else { return nil }
        parts.removeFirst()  // the root's own name
        var n = tree
        for p in parts {
            if p == "header" || p == "footer" {
                guard let next = n[String(p)], !next.isNull else { return nil }
                n = next
                continue
            }
            guard let open = p.firstIndex(of: "["), p.hasSuffix("]"),
                  let i = Int(p[p.index(after: open)..<p.index(before: p.endIndex)]),
                  let list = n[String(p[..<open])]?.array, list.indices.contains(i) else { return nil }
            n = list[i]
        }
        return n
    }

    /// A field of `TreeDiffer.changedFields` (`props.title`: a member of props, meta or style;
    /// else a key of the node) read from a node.
    static func value(_ field: String, of node: JSONValue?) -> JSONValue? {
        guard let node else { return nil }
        if let dot = field.firstIndex(of: "."), TreeDiffer.expanded.contains(String(field[..<dot])) {
            return node[String(field[..<dot])]?[String(field[field.index(after: dot)...])]
        }
        return node[field]
    }

    static func text(_ v: JSONValue?) -> String {
        guard let v else { return "(none)" }
        let s = v.serialized(pretty: false)
        guard s.count > maxValueCharacters else { return s }
        return String(s.prefix(maxValueCharacters)) + "…"
    }
}
