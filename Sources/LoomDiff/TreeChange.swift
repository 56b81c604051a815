import LoomCore
import OrderedCollections

/// How a component or item changed between two resolutions of a screen, classified as Spots'
/// differ classifies a reload: a hard update needs the view reloaded (its type, view, kind, size
/// or frame changed), a soft one only re-configures it in place (props, title, text, style or
/// action changed).
public enum ChangeKind: String, Sendable, CaseIterable {
    case inserted, deleted, moved, hard, soft
}

/// One change, located by the node's id (nil when it has none) and its path in the tree it
/// belongs to (the new tree, except for deletions, which name the old path).
public struct TreeChange: Sendable, Equatable {
    /// "component" or "item".
    public var node: String
    public var id: String?
    public var path: String
    public var change: ChangeKind
    /// The component's type or the item's kind.
    public var type: String?
    public var oldIndex: Int?
    public var newIndex: Int?
    /// For updates: the keys whose values changed (`props.title`, `action`, `view`, …), sorted.
    public var fields: [String]
    /// Set by callers that know why a node appeared or disappeared (e.g. the rule that now hides it).
    public var reason: String?
    /// Items: the collection they belong to, as `list 'watched'` (its type and id), which names
    /// an item that has neither an id nor a kind (`item 2 of list 'watched'`).
    public var collection: String?
    /// For updates: the node's path in the old tree (it differs from `path` below a move), so
    /// its old values can be read (`ChangeValues`). Not part of the JSON form.
    public var oldPath: String?

    public init(node: String, id: String?, path: String, change: ChangeKind, type: String?,
                oldIndex: Int? = nil, newIndex: Int? = nil, fields: [String] = [], reason: String? = nil,
                collection: String? = nil, oldPath: String? = nil) {
        self.node = node
        self.id = id
        self.path = path
        self.change = change
        self.type = type
        self.oldIndex = oldIndex
        self.newIndex = newIndex
        self.fields = fields
        self.reason = reason
        self.collection = collection
        self.oldPath = oldPath
    }

    /// `item 2 of list 'watched'` (`item 2` without a collection): an item named by its place,
    /// for an item with no id and no kind, in diffs and patch errors. Not escaped.
    public static func itemName(index: Int, collection: String?) -> String {
        "item \(index)" + (collection.map { " of \($0)" } ?? "")
    }

    /// `list 'watched'` or `list` (no id): a collection as item names mention it. Not escaped.
    public static func collectionName(type: String?, id: String?) -> String {
        (type ?? "collection") + (id.map { " '\($0)'" } ?? "")
    }

    /// The JSON form used by `host diff --format json` and `host run --patch` (`changes`).
    public var json: JSONValue {
        var o: OrderedDictionary<String, JSONValue> = [:]
        o["id"] = id.map { .string($0) } ?? .null
        o["path"] = .string(path)
        o["change"] = .string(change.rawValue)
        o["node"] = .string(node)
        if let t = type { o["type"] = .string(t) }
        if let i = oldIndex { o["old_index"] = .int(i) }
        if let i = newIndex { o["new_index"] = .int(i) }
        if !fields.isEmpty { o["fields"] = .array(fields.map { .string($0) }) }
        if let r = reason { o["reason"] = .string(r) }
        return .object(o)
    }

    /// One line for text output: `soft  component 'watched' (root/children[0]) props.title`;
    /// an item without id or kind is named by its place: `soft  item 2 of list 'watched' (…)`.
    /// Ids, types, paths, field names and reasons come from the project (screens, plugins,
    /// rules): each goes through `TextEscape`, so a control character in one prints as
    /// `\u{1B}` and cannot drive the terminal or start a forged line.
    public var line: String {
        var s = change.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)
        s += node + " "
        if let id {
            s += "'\(TextEscape.escaped(id))'"
        } else if let type {
            s += TextEscape.escaped(type)
        } else if node == "item", let i = change == .deleted ? oldIndex : newIndex {
            // An item without id or kind (Spots' items often have neither): its place.
            s = String(s.dropLast(node.count + 1)) + TextEscape.escaped(Self.itemName(index: i, collection: collection))
        } else {
            s += "?"
        }
        s += " (\(TextEscape.escaped(path)))"
        switch change {
        case .moved: s += " \(oldIndex ?? 0) → \(newIndex ?? 0)"
        case .hard, .soft: if !fields.isEmpty { s += ": " + fields.map(TextEscape.escaped).joined(separator: ", ") }
        default: break
        }
        if let r = reason { s += " — " + TextEscape.escaped(r) }
        return s
    }
}

/// Counts per change kind (unchanged nodes included), for summaries and impact tables.
public struct ChangeCounts: Sendable, Equatable {
    public var inserted = 0, deleted = 0, moved = 0, hard = 0, soft = 0, unchanged = 0
    public init() {}
    public init(_ changes: [TreeChange], unchanged: Int) {
        for c in changes {
            switch c.change {
            case .inserted: inserted += 1
            case .deleted: deleted += 1
            case .moved: moved += 1
            case .hard: hard += 1
            case .soft: soft += 1
            }
        }
        self.unchanged = unchanged
    }
    public var total: Int { inserted + deleted + moved + hard + soft }
}
