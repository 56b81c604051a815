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

    // Not `indirect`: arrays and objects already live on the heap, and boxing every scalar node
    // costs an allocation each (the reader is ~25% faster without it).
    public enum Kind: Sendable, Hashable {
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

// MARK: - Accessors

extension JSONValue {
    public var isNull: Bool { if case .null = self { return true } else { return false } }
    public var bool: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    public var string: String? { if case .string(let s) = self { return s } else { return nil } }
    public var array: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }
    public var object: OrderedDictionary<String, JSONValue>? {
        if case .object(let o) = self { return o } else { return nil }
    }
    /// An `.int`, or a `.double` with an integral value that fits `Int`.
    public var int: Int? {
        switch self {
        case .int(let i): return i
        case .double(let d): return Int(exactly: d)
        default: return nil
        }
    }
    /// Any number as a Double.
    public var double: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }
    /// "a string", "an object"... for messages such as "expected a string, found an object".
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .int, .double: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
    public subscript(key: String) -> JSONValue? { object?[key] }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// Later duplicates replace earlier ones, keeping the first one's place.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var o = OrderedDictionary<String, JSONValue>()
        for (k, v) in elements { o[k] = v }
        self = .object(o)
    }
}

extension JSONNode {
    public var isNull: Bool { if case .null = kind { return true } else { return false } }
    public var bool: Bool? { if case .bool(let b) = kind { return b } else { return nil } }
    public var string: String? { if case .string(let s) = kind { return s } else { return nil } }
    public var array: [JSONNode]? { if case .array(let a) = kind { return a } else { return nil } }
    public var object: JSONObject? { if case .object(let o) = kind { return o } else { return nil } }
    /// An `.int`, or a `.double` with an integral value that fits `Int`.
    public var int: Int? {
        switch kind {
        case .int(let i): return i
        case .double(let d): return Int(exactly: d)
        default: return nil
        }
    }
    /// Any number as a Double.
    public var double: Double? {
        switch kind {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }
    /// "a string", "an object"... for messages such as "expected a string, found an object".
    public var kindName: String {
        switch kind {
        case .null: return "null"
        case .bool: return "a boolean"
        case .int, .double: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// The value without positions, keeping key order.
    public var plain: JSONValue {
        switch kind {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        case .string(let s): return .string(s)
        case .array(let items): return .array(items.map(\.plain))
        case .object(let o):
            // The reader admits no two keys Swift compares equal; for objects made otherwise,
            // the first of such keys wins (never a trap, never a corrupt dictionary).
            var out = OrderedDictionary<String, JSONValue>(minimumCapacity: o.members.count)
            for m in o.members where out[m.key] == nil { out[m.key] = m.value.plain }
            return .object(out)
        }
    }
}
