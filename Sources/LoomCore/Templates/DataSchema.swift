import OrderedCollections

/// The JSON Schema subset that types a data source (`data/restaurants.schema.json`, docs/data.md):
/// `type` (a name or a list of names: object, array, string, number, integer, boolean, null),
/// `properties`, `required`, `additionalProperties` (false, or a schema), `items`, `enum`,
/// `minimum`, `maximum`, `minLength`, `maxLength`, `minItems`, `maxItems`; `$schema`, `$id`,
/// `title`, `description`, `examples` and `default` are read and ignored. Any other keyword is an
/// error at the keyword (a schema the host would half-apply is refused, not trusted). Written
/// here because the package has no JSON Schema library and needs located errors in the data.
public indirect enum DataSchema: Sendable {
    case schema(Node)

    public struct Node: Sendable {
        var types: [String]?
        var properties: OrderedDictionary<String, DataSchema> = [:]
        var required: [String] = []
        var additional: Additional = .any
        var items: DataSchema?
        var enumeration: [JSONValue]?
        var minimum: Double?
        var maximum: Double?
        var minLength: Int?
        var maxLength: Int?
        var minItems: Int?
        var maxItems: Int?
        /// Whether the schema gives a `"default"` (not applied by the host; for `host check`,
        /// a field with one is taken as always filled by whoever writes the data).
        var hasDefault = false
    }

    enum Additional: Sendable {
        case any, none
        case schema(DataSchema)
    }

    static let typeNames = ["object", "array", "string", "number", "integer", "boolean", "null"]
    static let ignored: Set<String> = ["$schema", "$id", "title", "description", "examples", "default", "$comment"]
    static let keywords: Set<String> = [
        "type", "properties", "required", "additionalProperties", "items", "enum", "minimum", "maximum",
        "minLength", "maxLength", "minItems", "maxItems",
    ]

    /// Reads a schema document; every problem is an error located in it.
    public static func parse(_ doc: JSONDocument) -> (DataSchema?, Diagnostics) {
        var d = Diagnostics()
        let s = parse(doc.root, file: doc.file, depth: 0, &d)
        return (d.hasErrors ? nil : s, d)
    }

    static func parse(_ n: JSONNode, file: String, depth: Int, _ d: inout Diagnostics) -> DataSchema {
        var node = Node()
        if case .bool(true) = n.kind { return .schema(node) }
        guard let o = n.object else {
            d.error("a schema is an object, found \(n.kindDescription)", at: n.position.located(in: file))
            return .schema(node)
        }
        if depth > 64 {
            d.error("the schema nests deeper than 64", at: n.position.located(in: file))
            return .schema(node)
        }
        func at(_ x: JSONNode) -> SourceLocation { x.position.located(in: file) }
        func count(_ x: JSONNode, _ k: String) -> Int? {
            guard let i = x.int, i >= 0 else { d.error("\"\(k)\" is a whole number ≥ 0, found \(x.kindDescription)", at: at(x)); return nil }
            return i
        }
        for m in o.members {
            let v = m.value
            switch m.key {
            case "type":
                let names = v.array?.compactMap(\.string) ?? v.string.map { [$0] }
                guard let names, !names.isEmpty, names.count == (v.array?.count ?? 1) else {
                    d.error("\"type\" is a type name or a list of them (\(typeNames.joined(separator: ", ")))", at: at(v))
                    continue
                }
                for t in names where !typeNames.contains(t) {
                    d.error("unknown type '\(t)'\(DidYouMean.hint(t, among: typeNames))", at: at(v))
                }
                node.types = names
            case "properties":
                guard let po = v.object else { d.error("\"properties\" is an object of schemas", at: at(v)); continue }
                for p in po.members { node.properties[p.key] = parse(p.value, file: file, depth: depth + 1, &d) }
            case "required":
                guard let list = v.array, list.allSatisfy({ $0.string != nil }) else {
                    d.error("\"required\" is a list of property names", at: at(v))
                    continue
                }
                node.required = list.compactMap(\.string)
            case "additionalProperties":
                if case .bool(let b) = v.kind { node.additional = b ? .any : .none } else {
                    node.additional = .schema(parse(v, file: file, depth: depth + 1, &d))
                }
            case "items": node.items = parse(v, file: file, depth: depth + 1, &d)
            case "enum":
                guard let list = v.array else { d.error("\"enum\" is a list of values", at: at(v)); continue }
                node.enumeration = list.map(\.plain)
            case "minimum", "maximum":
                guard let x = v.double else { d.error("\"\(m.key)\" is a number, found \(v.kindDescription)", at: at(v)); continue }
                if m.key == "minimum" { node.minimum = x } else { node.maximum = x }
            case "minLength": node.minLength = count(v, m.key)
            case "maxLength": node.maxLength = count(v, m.key)
            case "minItems": node.minItems = count(v, m.key)
            case "maxItems": node.maxItems = count(v, m.key)
            case "default": node.hasDefault = true
            default:
                if ignored.contains(m.key) { continue }
                d.error("schema keyword '\(m.key)' is not in the subset the host checks\(DidYouMean.hint(m.key, among: keywords)) (docs/data.md, \"Schemas\")",
                        at: m.keyPosition.located(in: file))
            }
        }
        return .schema(node)
    }

    /// The schema of the value at `steps` below this one (a key: its property's; an index: the
    /// items'), nil where the schema declares nothing.
    public func at(_ steps: some Sequence<TemplateExpression.PathStep>) -> DataSchema? {
        var s = self
        for step in steps {
            guard case .schema(let n) = s else { return nil }
            switch step {
            case .key(let k):
                guard let p = n.properties[k] else { return nil }
                s = p
            case .index:
                guard let i = n.items else { return nil }
                s = i
            }
        }
        return s
    }

    /// The first key along `steps` that its object's schema declares optional: a property not
    /// in `"required"` and without a `"default"`; nil when every declared key on the way is
    /// required (or the schema declares nothing there: nothing to say).
    public func firstOptionalKey(_ steps: some Sequence<TemplateExpression.PathStep>) -> String? {
        var s = self
        for step in steps {
            guard case .schema(let n) = s else { return nil }
            switch step {
            case .key(let k):
                guard let p = n.properties[k] else { return nil }
                if !n.required.contains(k), case .schema(let pn) = p, !pn.hasDefault { return k }
                s = p
            case .index:
                guard let i = n.items else { return nil }
                s = i
            }
        }
        return nil
    }

    /// Checks `value` (read from `file`); each mismatch is an error at the value, naming its path
    /// (`restaurants[2].rating`). Stops after `limit` errors.
    public func validate(_ value: JSONNode, file: String, path: String, limit: Int = 20) -> Diagnostics {
        var d = Diagnostics()
        check(value, file: file, path: path, &d, limit: limit)
        return d
    }

    func check(_ v: JSONNode, file: String, path: String, _ d: inout Diagnostics, limit: Int) {
        guard d.count < limit, case .schema(let s) = self else { return }
        func fail(_ m: String) { d.error("\(path): \(m)", at: v.position.located(in: file)) }
        if let types = s.types, !types.contains(where: { Self.matches(v, $0) }) {
            return fail("expected \(types.joined(separator: " or ")), found \(v.kindDescription)")
        }
        if let e = s.enumeration, !e.contains(v.plain) {
            return fail("expected one of \(e.map { $0.serialized(pretty: false) }.joined(separator: ", ")), found \(v.kindDescription)")
        }
        if let x = v.double {
            if let m = s.minimum, x < m { fail("\(JSONValue.numberText(x)) is below the minimum \(JSONValue.numberText(m))") }
            if let m = s.maximum, x > m { fail("\(JSONValue.numberText(x)) is above the maximum \(JSONValue.numberText(m))") }
        }
        if let str = v.string {
            if let m = s.minLength, str.count < m { fail("a string of at least \(m) characters, found \(str.count)") }
            if let m = s.maxLength, str.count > m { fail("a string of at most \(m) characters, found \(str.count)") }
        }
        if let list = v.array {
            if let m = s.minItems, list.count < m { fail("at least \(m) items, found \(list.count)") }
            if let m = s.maxItems, list.count > m { fail("at most \(m) items, found \(list.count)") }
            if let items = s.items {
                for (i, x) in list.enumerated() where d.count < limit { items.check(x, file: file, path: "\(path)[\(i)]", &d, limit: limit) }
            }
        }
        if let o = v.object {
            for r in s.required where o[r] == nil { fail("missing required field '\(r)'") }
            for m in o.members where d.count < limit {
                let sub = "\(path).\(m.key)"
                if let p = s.properties[m.key] {
                    p.check(m.value, file: file, path: sub, &d, limit: limit)
                } else {
                    switch s.additional {
                    case .any: break
                    case .none:
                        d.error("\(path): unknown field '\(m.key)'\(DidYouMean.hint(m.key, among: s.properties.keys)) (the schema allows no other fields)",
                                at: m.keyPosition.located(in: file))
                    case .schema(let a): a.check(m.value, file: file, path: sub, &d, limit: limit)
                    }
                }
            }
        }
    }

    static func matches(_ v: JSONNode, _ type: String) -> Bool {
        switch (type, v.kind) {
        case ("object", .object), ("array", .array), ("string", .string), ("boolean", .bool), ("null", .null): return true
        case ("number", .int), ("number", .double): return true
        case ("integer", .int): return true
        case ("integer", .double(let x)): return x == x.rounded()
        default: return false
        }
    }
}
