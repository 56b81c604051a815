import OrderedCollections

/// A plain JSON value, keeping object key order. Used for output and for values handed to Lua.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(OrderedDictionary<String, JSONValue>)
}

/// A JSON value read from a file: every node knows where it starts.
public struct JSONNode: Sendable, Hashable {
    public var position: SourcePosition
    public var kind: Kind

    public indirect enum Kind: Sendable, Hashable {
        case null
        case bool(Bool)
        case int(Int)
        case double(Double)
        case string(String)
        case array([JSONNode])
        case object(JSONObject)
    }

    public init(_ kind: Kind, at position: SourcePosition) {
        self.kind = kind
        self.position = position
    }
}

/// An object's members in file order. Keys are unique (the reader rejects duplicates).
public struct JSONObject: Sendable, Hashable {
    public struct Member: Sendable, Hashable {
        public var key: String
        public var keyPosition: SourcePosition
        public var value: JSONNode
        public init(key: String, keyPosition: SourcePosition, value: JSONNode) {
            self.key = key
            self.keyPosition = keyPosition
            self.value = value
        }
    }

    public var members: [Member]

    public init(_ members: [Member] = []) { self.members = members }

    public subscript(key: String) -> JSONNode? {
        for m in members where m.key == key { return m.value }
        return nil
    }

    public func member(_ key: String) -> Member? {
        members.first { $0.key == key }
    }

    public var keys: [String] { members.map(\.key) }
}

/// A parsed file: its display path and root node.
public struct JSONDocument: Sendable {
    public var file: String
    public var root: JSONNode
    public init(file: String, root: JSONNode) {
        self.file = file
        self.root = root
    }
    public func location(_ p: SourcePosition) -> SourceLocation { p.located(in: file) }
}
