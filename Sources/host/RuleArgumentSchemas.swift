import LoomCore
import OrderedCollections

/// Rules' declared argument schemas (`host.rule` `options.args`) as JSON Schema, for
/// `host schema screen --with-plugins`: what the host rejects is rejected; format details the
/// host checks (SemVer, ISO-8601) are described, not encoded.
enum RuleArgumentSchemas {
    typealias Object = OrderedDictionary<String, JSONValue>

    /// Rule name → the schema of its arguments, for every rule that declares them.
    static func byRule(_ factory: Factory) -> Object {
        var out: Object = [:]
        for name in factory.rules.keys.sorted() {
            guard let r = factory.rules[name], let args = r.arguments else { continue }
            var s = schema(args)
            if case .object(var o) = s {
                var what = "The arguments of rule '\(name)' (plugin \(r.plugin.name) \(r.plugin.version))"
                if let d = r.description { what += ": " + d }
                o["description"] = .string(what)
                s = .object(o)
            }
            out[name] = s
        }
        return out
    }

    static func schema(_ a: ArgumentSchema) -> JSONValue {
        var o = kind(a.kind)
        if let values = a.values { o["enum"] = .array(values) }
        let (minKey, maxKey): (String, String)
        switch a.kind {
        case .string: (minKey, maxKey) = ("minLength", "maxLength")
        case .list: (minKey, maxKey) = ("minItems", "maxItems")
        case .map: (minKey, maxKey) = ("minProperties", "maxProperties")
        default: (minKey, maxKey) = ("minimum", "maximum")
        }
        if let m = a.min { o[minKey] = number(m) }
        if let m = a.max { o[maxKey] = number(m) }
        if let d = a.description { o["description"] = .string(d) }
        if let d = a.defaultValue { o["default"] = d }
        return .object(o)
    }

    static func number(_ d: Double) -> JSONValue {
        d == d.rounded() && abs(d) < 9e15 ? .int(Int(d)) : .double(d)
    }

    static func kind(_ k: ArgumentSchema.Kind) -> Object {
        switch k {
        case .string: return ["type": .string("string")]
        case .number: return ["type": .string("number")]
        case .integer: return ["type": .string("integer")]
        case .boolean: return ["type": .string("boolean")]
        case .version: return ["type": .string("string"), "$comment": .string("a version like \"5.2.0\" (SemVer 2.0)")]
        case .datetime: return ["type": .string("string"), "$comment": .string("an ISO-8601 date or date-time")]
        case .decimal: return ["type": .string("string"), "$comment": .string("a decimal number written as a string")]
        case .date: return ["type": .string("string"), "pattern": .string("^[0-9]{4}-[0-9]{2}-[0-9]{2}$"), "$comment": .string("a date YYYY-MM-DD")]
        case .clock: return ["type": .string("string"), "pattern": .string("^([01][0-9]|2[0-3]):[0-5][0-9]$"), "$comment": .string("a time of day hh:mm")]
        case .timezone: return ["type": .string("string"), "$comment": .string("an IANA time zone name of the system's tzdata")]
        case .any: return [:]
        case .list(let e): return ["type": .string("array"), "items": schema(e)]
        case .map(let e): return ["type": .string("object"), "propertyNames": .object(["minLength": .int(1)]), "additionalProperties": schema(e)]
        case .object(let fields):
            var props: Object = [:]
            for (name, f) in fields { props[name] = schema(f) }
            let required = fields.filter(\.value.required).map { JSONValue.string($0.key) }
            var o: Object = ["type": .string("object"), "properties": .object(props), "additionalProperties": .bool(false)]
            if !required.isEmpty { o["required"] = .array(required) }
            return o
        case .oneOf(let kinds): return ["anyOf": .array(kinds.map { .object(kind($0)) })]
        }
    }
}
