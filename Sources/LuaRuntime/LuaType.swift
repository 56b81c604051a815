import CLua

/// The type of a Lua value on the stack (`LuaState.type(_:)`); `none` is an index past the top.
public enum LuaType: Int32, Sendable, Hashable {
    case none = -1
    case `nil` = 0
    case boolean = 1
    case lightUserdata = 2
    case number = 3
    case string = 4
    case table = 5
    case function = 6
    case userdata = 7
    case thread = 8

    /// Lua's own name of the type ("nil", "boolean", "table", …; "no value" for `none`).
    public var name: String {
        switch self {
        case .none: return "no value"
        case .nil: return "nil"
        case .boolean: return "boolean"
        case .lightUserdata, .userdata: return "userdata"
        case .number: return "number"
        case .string: return "string"
        case .table: return "table"
        case .function: return "function"
        case .thread: return "thread"
        }
    }

    /// Nil, or no value at all.
    public var isNoneOrNil: Bool { self == .none || self == .nil }
}

extension LuaType {
    /// The type of a `lua_type` result (LUA_T*).
    @inlinable
    init(_ raw: Int32) { self = LuaType(rawValue: raw) ?? .none }
}
