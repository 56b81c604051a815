import LoomCore
import OrderedCollections

/// The screen schema extended with what the loaded plugins registered: per component type
/// (and alias), its `meta` fields typed as its meta schema declares them.
enum PluginScreenSchema {
    typealias Object = OrderedDictionary<String, JSONValue>

    static func extend(_ screenSchema: String, with factory: Factory) -> Result<JSONValue, Diagnostic> {
        guard case .object(var root)? = JSONReader.parseValue(screenSchema),
              case .object(var defs)? = root["$defs"],
              case .object(var component)? = defs["component"],
              case .object(var spots)? = defs["spotsComponent"]
        else { return .failure(.error("the embedded screen schema has no $defs.component (rebuild the host)")) }
        var byType: [JSONValue] = [], byKind: [JSONValue] = []
        for name in factory.components.keys.sorted() {
            let r = factory.components[name]!
            let names = JSONValue.array(([name] + r.aliases).map { .string($0) })
            let ref = JSONValue.object(["$ref": .string("#/$defs/meta_\(name)")])
            defs["meta_\(name)"] = metaSchema(r)
            byType.append(.object([
                "if": .object(["required": .array([.string("type")]), "properties": .object(["type": .object(["enum": names])])]),
                "then": .object(["properties": .object(["meta": ref])]),
            ]))
            byKind.append(.object([
                "if": .object(["anyOf": .array([
                    .object(["required": .array([.string("kind")]), "properties": .object(["kind": .object(["enum": names])])]),
                    .object(["not": .object(["required": .array([.string("kind")])]), "required": .array([.string("type")]), "properties": .object(["type": .object(["enum": names])])]),
                ])]),
                "then": .object(["properties": .object(["meta": ref])]),
            ]))
        }
        component["allOf"] = .array(byType)
        spots["allOf"] = .array(byKind)
        defs["component"] = .object(component)
        defs["spotsComponent"] = .object(spots)
        if case .object(var rule)? = defs["rule"], case .array(var forms)? = rule["anyOf"], forms.count > 1,
           case .object(var call) = forms[1], case .object(var props)? = call["properties"] {
            for (name, schema) in RuleArgumentSchemas.byRule(factory) { props[name] = schema }
            call["properties"] = .object(props)
            forms[1] = .object(call)
            rule["anyOf"] = .array(forms)
            defs["rule"] = .object(rule)
        }
        root["$defs"] = .object(defs)
        if case .string(let d)? = root["description"] {
            root["description"] = .string(d + " Extended by `host schema screen --with-plugins` with the meta fields of the component types registered when it ran.")
        }
        return .success(.object(root))
    }

    /// The schema of one component type's `meta`: declared fields typed; other keys accepted
    /// (the host only warns about unknown meta keys).
    static func metaSchema(_ r: ComponentRegistration) -> JSONValue {
        var o: Object = ["type": .string("object")]
        var what = "The meta of '\(r.type)' (plugin \(r.plugin.name) \(r.plugin.version))"
        if let d = r.description { what += ": " + d }
        o["description"] = .string(what + (r.openMeta ? "; other keys pass through as props." : "."))
        if let meta = r.meta { o["properties"] = properties(meta) }
        return .object(o)
    }

    static func properties(_ schema: MetaSchema) -> JSONValue {
        var p: Object = [:]
        for (name, type) in schema.fields { p[name] = fieldSchema(type) }
        return .object(p)
    }

    /// A meta field type as JSON Schema, accepting exactly what `MetaSchema.check` accepts.
    static func fieldSchema(_ t: MetaSchema.FieldType) -> JSONValue {
        func typed(_ name: String) -> JSONValue { .object(["type": .string(name), "description": .string(t.description)]) }
        switch t {
        case .string: return typed("string")
        case .number: return typed("number")
        case .integer: return typed("integer")
        case .boolean: return typed("boolean")
        case .object: return typed("object")
        case .array: return typed("array")
        case .any: return .object(["description": .string(t.description)])
        case .text:
            return .object(["description": .string(t.description), "anyOf": .array([
                .object(["type": .string("string")]),
                .object(["type": .string("object"), "required": .array([.string("key")]), "properties": .object(["key": .object(["type": .string("string")])])]),
                // `{"localized_string": KEY, "args": {…}}`, as MetaSchema accepts it (docs/localization.md).
                .object(["type": .string("object"), "required": .array([.string("localized_string")]),
                         "properties": .object(["localized_string": .object(["type": .string("string")]), "args": .object(["type": .string("object")])])]),
            ])])
        case .color:
            return .object(["type": .string("string"), "pattern": .string("^(0[xX]|#)?[0-9A-Fa-f]{6}$"), "description": .string(t.description)])
        case .enumeration(let values):
            return .object(["enum": .array(values.map { .string($0) }), "description": .string(t.description)])
        case .nested(let schema):
            return .object(["type": .string("object"), "properties": properties(schema)])
        }
    }
}
