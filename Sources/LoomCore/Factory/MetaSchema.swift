import OrderedCollections

/// The declared meta fields of a component type (`options.meta`), checked before any builder runs.
public struct SchemaError: Error, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

public struct MetaSchema: Sendable, Hashable {
    public indirect enum FieldType: Sendable, Hashable {
        case string, text, number, integer, boolean, color, object, array, any
        case enumeration([String])
        case nested(MetaSchema)

        public var description: String {
            switch self {
            case .string: return "a string"
            case .text: return "a string or a localized string object"
            case .number: return "a number"
            case .integer: return "an integer"
            case .boolean: return "a boolean"
            case .color: return "a colour (\"0xRRGGBB\" or \"RRGGBB\")"
            case .object, .nested: return "an object"
            case .array: return "a list"
            case .any: return "any value"
            case .enumeration(let values): return "one of " + values.map { "\"\($0)\"" }.joined(separator: ", ")
            }
        }
    }

    public var fields: OrderedDictionary<String, FieldType>

    public init(_ fields: OrderedDictionary<String, FieldType> = [:]) { self.fields = fields }

    /// Reads a schema declared in Lua (already converted to JSON): `{ field = "string", ... }`.
    public static func parse(_ value: JSONValue, path: String = "meta") -> Result<MetaSchema, SchemaError> {
        guard case .object(let obj) = value else { return .failure(SchemaError("\(path) must be a table of field = type")) }
        var fields: OrderedDictionary<String, FieldType> = [:]
        for (key, v) in obj.sorted(by: { $0.key < $1.key }) {
            switch parseType(v, path: "\(path).\(key)") {
            case .success(let t): fields[key] = t
            case .failure(let e): return .failure(e)
            }
        }
        return .success(MetaSchema(fields))
    }

    static let names = ["string", "text", "number", "integer", "boolean", "color", "object", "array", "any"]

    static func parseType(_ v: JSONValue, path: String) -> Result<FieldType, SchemaError> {
        switch v {
        case .string(let s):
            switch s {
            case "string": return .success(.string)
            case "text": return .success(.text)
            case "number": return .success(.number)
            case "integer": return .success(.integer)
            case "boolean": return .success(.boolean)
            case "color", "colour": return .success(.color)
            case "object", "table": return .success(.object)
            case "array", "list": return .success(.array)
            case "any": return .success(.any)
            default: return .failure(SchemaError("\(path): unknown field type '\(s)'\(DidYouMean.hint(s, among: names))"))
            }
        case .array(let values):
            var out: [String] = []
            for x in values {
                guard case .string(let s) = x else { return .failure(SchemaError("\(path): an enumeration lists strings")) }
                out.append(s)
            }
            return .success(.enumeration(out))
        case .object:
            return parse(v, path: path).map { .nested($0) }
        default:
            return .failure(SchemaError("\(path): a field type is a type name, a list of strings or a nested table"))
        }
    }

    /// Checks `meta` (an object node) against the schema. Wrong types are errors (returns false:
    /// the component is not shown); unknown keys are warnings with a did-you-mean.
    public func validate(
        _ meta: JSONObject, file: String, open: Bool, renamed: [String: String], owner: String,
        also: MetaSchema? = nil, diagnostics: inout Diagnostics
    ) -> Bool {
        var ok = true
        let allKeys = Array(fields.keys) + Array(also?.fields.keys ?? [])
        for m in meta.members {
            let keyLoc = m.keyPosition.located(in: file)
            guard let type = fields[m.key] ?? also?.fields[m.key] else {
                if open { continue }
                if let newName = renamed[m.key] {
                    diagnostics.warning("unknown meta key '\(m.key)' for \(owner); did you mean '\(newName)'? ('\(m.key)' was renamed)", at: keyLoc)
                } else {
                    diagnostics.warning("unknown meta key '\(m.key)' for \(owner)\(DidYouMean.hint(m.key, among: allKeys))", at: keyLoc)
                }
                continue
            }
            if !MetaSchema.check(m.value, type, field: m.key, file: file, owner: owner, diagnostics: &diagnostics) { ok = false }
        }
        return ok
    }

    static func check(_ v: JSONNode, _ t: FieldType, field: String, file: String, owner: String, diagnostics: inout Diagnostics) -> Bool {
        let loc = v.position.located(in: file)
        func fail() -> Bool {
            diagnostics.error("meta '\(field)' of \(owner) must be \(t.description), found \(v.kindDescription)", at: loc)
            return false
        }
        // `{"$param": "id"}` is the screen's parameter, substituted at resolution.
        if ParamBinding.name(v) != nil { return true }
        switch (t, v.kind) {
        case (.any, _): return true
        case (.string, .string): return true
        case (.text, .string): return true
        case (.text, .object(let o)):
            if o["key"]?.string != nil { return true }
            // `{"localized_string": KEY, "args": {…}}` (docs/localization.md).
            if o["localized_string"]?.string != nil, o["args"].map({ $0.object != nil }) ?? true { return true }
            return fail()
        case (.number, .int), (.number, .double): return true
        case (.integer, .int): return true
        case (.integer, .double(let d)) where d == d.rounded() && abs(d) < 9e15: return true
        case (.boolean, .bool): return true
        case (.color, .string(let s)):
            if MetaSchema.parseColor(s) != nil { return true }
            diagnostics.error("meta '\(field)' of \(owner) is not a colour: \"\(s)\" (expected \"0xRRGGBB\" or \"RRGGBB\")", at: loc)
            return false
        case (.object, .object), (.array, .array): return true
        case (.enumeration(let values), .string(let s)):
            if values.contains(s) { return true }
            diagnostics.error("meta '\(field)' of \(owner) must be one of \(values.map { "\"\($0)\"" }.joined(separator: ", ")), found \"\(s)\"\(DidYouMean.hint(s, among: values))", at: loc)
            return false
        case (.nested(let schema), .object(let o)):
            return schema.validate(o, file: file, open: false, renamed: [:], owner: "\(owner) '\(field)'", diagnostics: &diagnostics)
        default:
            return fail()
        }
    }

    /// "0xRRGGBB" / "RRGGBB" / "#RRGGBB" → 0xRRGGBB.
    public static func parseColor(_ s: String) -> Int? {
        var hex = Substring(s)
        if hex.hasPrefix("0x") || hex.hasPrefix("0X") { hex = hex.dropFirst(2) } else if hex.hasPrefix("#") { hex = hex.dropFirst() }
        guard hex.count == 6, hex.allSatisfy({ $0.isHexDigit }) else { return nil }
        return Int(hex, radix: 16)
    }
}
