import OrderedCollections

/// The declared shape of a rule's arguments (`host.rule(name, evaluate, { args = … })`), or of a
/// collection's `layout`: checked by the host before any plugin code sees the value. See
/// docs/plugin-api.md, "Argument schemas".
public struct ArgumentSchema: Sendable, Hashable {
    public indirect enum Kind: Sendable, Hashable {
        case string, number, integer, boolean, version, datetime, decimal, any
        /// A calendar date "YYYY-MM-DD", a wall-clock time "hh:mm" (00:00 to 23:59), an IANA
        /// time zone of the system's tzdata ("Europe/Oslo").
        case date, clock, timezone
        /// A list whose every element matches the schema.
        case list(ArgumentSchema)
        /// An object of any names (non-empty) to values matching the schema (`{"tier": "gold"}`).
        case map(ArgumentSchema)
        /// An object with these known fields (unknown keys are errors, with a did-you-mean).
        case object(OrderedDictionary<String, ArgumentSchema>)
        /// Any one of these kinds.
        case oneOf([Kind])
    }

    public var kind: Kind
    /// The value must be one of these.
    public var values: [JSONValue]?
    /// Bounds: the value of a number, the length of a string, the entry count of a list or map.
    public var min: Double?
    public var max: Double?
    public var required: Bool
    public var defaultValue: JSONValue?
    public var description: String?
    /// Appended to a wrong-type message (e.g. `use "in" to match one of several values`).
    public var hint: String?
    /// Other spellings suggested for an unknown key (e.g. Unleash's `percentage` → `percent`).
    public var suggestFor: [String]

    public init(
        _ kind: Kind, values: [JSONValue]? = nil, min: Double? = nil, max: Double? = nil, required: Bool = false,
        defaultValue: JSONValue? = nil, description: String? = nil, hint: String? = nil, suggestFor: [String] = []
    ) {
        self.kind = kind
        self.values = values
        self.min = min
        self.max = max
        self.required = required
        self.defaultValue = defaultValue
        self.description = description
        self.hint = hint
        self.suggestFor = suggestFor
    }

    public static let typeNames = ["string", "number", "integer", "boolean", "version", "datetime", "date", "clock", "timezone", "decimal", "any", "list", "map", "object"]
    static let specKeys = ["type", "of", "fields", "values", "min", "max", "required", "default", "description", "hint", "suggest_for"]

    // MARK: Reading a schema declared in Lua (already JSON)

    /// Reads a rule's `args`: a type name (`"string"`), one spec (a table whose `type` is a type
    /// name or a list of them: `{ type = "list", of = "string" }`) for the whole argument, or a
    /// table of field name = spec: the arguments are then an object with those fields.
    public static func parseArguments(_ value: JSONValue, path: String = "options.args") -> Result<ArgumentSchema, SchemaError> {
        if case .object(let o) = value, !isSpec(o) {
            return parseFields(o, path: path).map { fields in
                ArgumentSchema(.object(fields), required: fields.values.contains { $0.required })
            }
        }
        if case .array(let a) = value, a.isEmpty { return .success(ArgumentSchema(.object([:]))) }
        return parse(value, path: path)
    }

    static func isSpec(_ o: OrderedDictionary<String, JSONValue>) -> Bool {
        switch o["type"] {
        case .string?: return true
        case .array(let a)? where a.allSatisfy({ $0.string != nil }): return true
        default: return false
        }
    }

    static func parseFields(_ o: OrderedDictionary<String, JSONValue>, path: String) -> Result<OrderedDictionary<String, ArgumentSchema>, SchemaError> {
        var fields: OrderedDictionary<String, ArgumentSchema> = [:]
        for (key, v) in o.sorted(by: { $0.key < $1.key }) {
            switch parse(v, path: "\(path).\(key)") {
            case .success(let s): fields[key] = s
            case .failure(let e): return .failure(e)
            }
        }
        return .success(fields)
    }

    /// One spec: a type name, or a table `{ type = …, of = …, values = …, min = …, … }`.
    public static func parse(_ value: JSONValue, path: String) -> Result<ArgumentSchema, SchemaError> {
        switch value {
        case .string(let name):
            return parseKind(.string(name), of: nil, fields: nil, path: path).map { ArgumentSchema($0) }
        case .object(let o):
            guard o["type"] != nil else {
                return .failure(SchemaError("\(path): a spec needs a type (one of \(typeNames.joined(separator: ", ")))"))
            }
            for k in o.keys where !specKeys.contains(k) {
                return .failure(SchemaError("\(path): unknown spec key '\(k)'\(DidYouMean.hint(k, among: specKeys))"))
            }
            var s: ArgumentSchema
            switch parseKind(o["type"]!, of: o["of"], fields: o["fields"], path: path) {
            case .success(let k): s = ArgumentSchema(k)
            case .failure(let e): return .failure(e)
            }
            if let v = o["values"] {
                guard case .array(let list) = v, !list.isEmpty else { return .failure(SchemaError("\(path).values must be a non-empty list")) }
                s.values = list
            }
            for (key, bound) in [("min", o["min"]), ("max", o["max"])] {
                guard let bound else { continue }
                guard let d = bound.double else { return .failure(SchemaError("\(path).\(key) must be a number, found \(bound.kindName)")) }
                if key == "min" { s.min = d } else { s.max = d }
            }
            if let lo = s.min, let hi = s.max, lo > hi { return .failure(SchemaError("\(path): min \(lo) is above max \(hi)")) }
            if let r = o["required"] {
                guard case .bool(let b) = r else { return .failure(SchemaError("\(path).required must be a boolean, found \(r.kindName)")) }
                s.required = b
            }
            for (key, v) in [("description", o["description"]), ("hint", o["hint"])] {
                guard let v else { continue }
                guard case .string(let str) = v else { return .failure(SchemaError("\(path).\(key) must be a string, found \(v.kindName)")) }
                if key == "description" { s.description = str } else { s.hint = str }
            }
            if let v = o["suggest_for"] {
                guard case .array(let list) = v, list.allSatisfy({ $0.string != nil }) else {
                    return .failure(SchemaError("\(path).suggest_for must be a list of strings"))
                }
                s.suggestFor = list.compactMap(\.string)
            }
            if let d = o["default"] {
                if s.required { return .failure(SchemaError("\(path): a required argument has no default")) }
                var problems: [ArgumentProblem] = []
                ArgumentValidator.check(JSONNode(plain: d), against: s, path: [], into: &problems)
                if let p = problems.first { return .failure(SchemaError("\(path).default: \(p.message)")) }
                s.defaultValue = d
            }
            return .success(s)
        default:
            return .failure(SchemaError("\(path): a spec is a type name or a table with a type, found \(value.kindName)"))
        }
    }

    static func parseKind(_ t: JSONValue, of: JSONValue?, fields: JSONValue?, path: String) -> Result<Kind, SchemaError> {
        if case .array(let names) = t {
            var kinds: [Kind] = []
            for n in names {
                switch parseKind(n, of: of, fields: fields, path: path) {
                case .success(let k): kinds.append(k)
                case .failure(let e): return .failure(e)
                }
            }
            guard !kinds.isEmpty else { return .failure(SchemaError("\(path).type: an empty list of types")) }
            return .success(kinds.count == 1 ? kinds[0] : .oneOf(kinds))
        }
        guard case .string(let name) = t else { return .failure(SchemaError("\(path).type must be a type name, found \(t.kindName)")) }
        func element() -> Result<ArgumentSchema, SchemaError> {
            guard let of else { return .failure(SchemaError("\(path): a \(name) needs `of` (the type of its \(name == "list" ? "elements" : "values"))")) }
            return parse(of, path: "\(path).of")
        }
        switch name {
        case "string": return .success(.string)
        case "number": return .success(.number)
        case "integer": return .success(.integer)
        case "boolean": return .success(.boolean)
        case "version": return .success(.version)
        case "datetime": return .success(.datetime)
        case "date": return .success(.date)
        case "clock": return .success(.clock)
        case "timezone": return .success(.timezone)
        case "decimal": return .success(.decimal)
        case "any": return .success(.any)
        case "list": return element().map { .list($0) }
        case "map": return element().map { .map($0) }
        case "object":
            guard case .object(let o)? = fields else {
                if case .array(let a)? = fields, a.isEmpty { return .success(.object([:])) }
                return .failure(SchemaError("\(path): an object needs `fields` (a table of field name = spec)"))
            }
            return parseFields(o, path: "\(path).fields").map { .object($0) }
        default:
            return .failure(SchemaError("\(path): unknown type '\(name)'\(DidYouMean.hint(name, among: typeNames))"))
        }
    }
}

extension JSONNode {
    /// A node without a place in a file (declared defaults, examples): every position is 0:0.
    public init(plain value: JSONValue) {
        let p = SourcePosition(line: 0, column: 0)
        switch value {
        case .null: self.init(.null, at: p)
        case .bool(let b): self.init(.bool(b), at: p)
        case .int(let i): self.init(.int(i), at: p)
        case .double(let d): self.init(.double(d), at: p)
        case .string(let s): self.init(.string(s), at: p)
        case .array(let a): self.init(.array(a.map { JSONNode(plain: $0) }), at: p)
        case .object(let o):
            self.init(.object(JSONObject(o.map { JSONObject.Member(key: $0.key, keyPosition: p, value: JSONNode(plain: $0.value)) })), at: p)
        }
    }
}
