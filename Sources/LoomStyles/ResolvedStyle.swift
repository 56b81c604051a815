import LoomCore
import OrderedCollections

/// Key → type, declared per component type beside `meta` (`{ style = { title_color = "color" } }`).
public struct StyleSchema: Sendable, Hashable {
    public static func == (a: StyleSchema, b: StyleSchema) -> Bool {
        a.owner == b.owner && a.strict == b.strict && a.types == b.types
    }
    /// The owner and size only: a schema is looked up once per component.
    public func hash(into h: inout Hasher) {
        h.combine(owner)
        h.combine(types.count)
    }

    public var types: OrderedDictionary<String, StyleType>
    /// Named in warnings: "not declared in the style schema of 'card'".
    public var owner: String
    /// Whether undeclared keys are warnings passed through as JSON (a component's schema), or
    /// typed by their form without a warning (`host style --type`).
    public var strict: Bool

    public init(_ types: OrderedDictionary<String, StyleType>, owner: String, strict: Bool = true) {
        self.types = types
        self.owner = owner
        self.strict = strict
    }

    /// From a JSON object of type names (`{"title_color": "color"}`), with located errors for
    /// unknown type names.
    public static func parse(_ node: JSONNode, file: String, owner: String) -> (StyleSchema, Diagnostics) {
        var d = Diagnostics()
        var types = OrderedDictionary<String, StyleType>()
        guard let o = node.object else {
            d.error("a style schema maps keys to type names, found \(node.kindName)", at: node.position.located(in: file))
            return (StyleSchema(types, owner: owner), d)
        }
        for m in o.members {
            guard let s = m.value.string, let t = StyleType(rawValue: s) else {
                let found = m.value.string.map { "'\(TextEscape.escaped($0))'" } ?? m.value.kindName
                let hint = m.value.string.map { DidYouMean.hint($0, among: StyleType.allCases.map(\.rawValue)) } ?? ""
                d.error("style type of '\(TextEscape.escaped(m.key))' is one of \(StyleType.allCases.map(\.rawValue).joined(separator: ", ")), found \(found)\(hint)", at: m.value.position.located(in: file))
                continue
            }
            types[m.key] = t
        }
        return (StyleSchema(types, owner: owner), d)
    }
}

/// One key's typed value and where it came from.
public struct ResolvedValue: Sendable, Hashable {
    public var value: StyleValue
    /// `file:line:column` of the key that won.
    public var from: SourceLocation
    /// The merges that replaced other values (listed by `overrode` when read).
    var chain: OverrideChain?
    /// The values it overrode, in the order they were applied.
    public var overrode: [SourceLocation] { OverrideChain.locations(chain) }

    public static func == (a: ResolvedValue, b: ResolvedValue) -> Bool {
        a.value == b.value && a.from == b.from && a.overrode == b.overrode
    }

    public func hash(into h: inout Hasher) {
        h.combine(value)
        h.combine(from)
        h.combine(overrode)
    }

    /// `{"from": "path:line", "overrode": ["path:line", …]}`.
    public var provenanceJSON: JSONValue {
        func line(_ l: SourceLocation) -> JSONValue { .string(SourceLocation(file: l.file, line: l.line, column: 0).description) }
        return .object(["from": line(from), "overrode": .array(overrode.map(line))])
    }
}

/// A style resolved for a device context: typed values in key order, with provenance.
public struct ResolvedStyle: Sendable, Hashable {
    public var names: [String]
    public var context: DeviceContext
    public var values: OrderedDictionary<String, ResolvedValue>
    /// Errors (keys not applied, cycles, missing imports) and warnings (undeclared keys, ignored
    /// device files).
    public var diagnostics: Diagnostics

    public init(names: [String], context: DeviceContext, values: OrderedDictionary<String, ResolvedValue> = [:], diagnostics: Diagnostics = Diagnostics()) {
        self.names = names
        self.context = context
        self.values = values
        self.diagnostics = diagnostics
    }

    public subscript(key: String) -> StyleValue? { values[key]?.value }

    /// `{key: value}` in the output shapes (a node's `"style"`).
    public var json: JSONValue {
        var o = OrderedDictionary<String, JSONValue>(minimumCapacity: values.count)
        for (k, v) in values { o[k] = v.value.json }
        return .object(o)
    }

    /// `{key: {"from", "overrode"}}`.
    public var provenanceJSON: JSONValue {
        var o = OrderedDictionary<String, JSONValue>(minimumCapacity: values.count)
        for (k, v) in values { o[k] = v.provenanceJSON }
        return .object(o)
    }

    /// `key=value key=value`: the compact line `host run` can show under a node.
    public var compactLine: String {
        values.map { "\($0.key)=\($0.value.value.text)" }.joined(separator: " ")
    }
}

extension StyleLibrary {
    /// `names` (applied in order, later winning) cascaded for `context`, each key typed by
    /// `schema` (undeclared keys: a warning, passed through as JSON) or, without one, by its form.
    /// A value that does not parse is an error and its key is left out.
    public func resolve(names: [String], context: DeviceContext, schema: StyleSchema? = nil) -> ResolvedStyle {
        var cascade = StyleCascade(library: self, context: context)
        return resolve(names: names, cascade: &cascade, schema: schema)
    }

    func resolve(names: [String], cascade: inout StyleCascade, schema: StyleSchema?) -> ResolvedStyle {
        let context = cascade.context
        let layer = cascade.resolve(names)
        var out = ResolvedStyle(names: names, context: context, values: OrderedDictionary(minimumCapacity: layer.count),
                                diagnostics: cascade.diagnostics)
        for (key, e) in layer {
            switch StyleLibrary.typed(key, e.value, location: e.location, valueLocation: e.valueLocation, schema: schema, diagnostics: &out.diagnostics) {
            case .success(let v): out.values[key] = ResolvedValue(value: v, from: e.location, chain: e.chain)
            case .failure(let d): out.diagnostics.append(d)
            }
        }
        return out
    }

    /// One key's value typed as a resolution types it: a layout key (`LayoutStyleKeys`) unless
    /// the schema declares it, else by the schema (an undeclared key of a strict schema: a
    /// warning, passed through as JSON), else by its form. `location`: the key's place.
    static func typed(_ key: String, _ value: JSONNode, location: SourceLocation, valueLocation: SourceLocation,
                      schema: StyleSchema?, diagnostics: inout Diagnostics) -> StyleValueParser.Outcome {
        if let layout = LayoutStyleKeys.parse(key, value, at: valueLocation, file: valueLocation.file), schema?.types[key] == nil {
            return layout
        }
        if let schema, schema.strict || schema.types[key] != nil {
            if let t = schema.types[key] { return StyleValueParser.parse(value, as: t, key: key, file: valueLocation.file) }
            let hint = DidYouMean.hint(key, among: schema.types.keys)
            diagnostics.warning("'\(TextEscape.escaped(key))' is not declared in the style schema of '\(schema.owner)'\(hint); passed through as JSON", at: location)
            if let bad = StyleValueParser.Parser(key: key, file: valueLocation.file).outOfRange(value) { return .failure(bad) }
            return .success(.json(value.plain))
        }
        return StyleValueParser.infer(value, key: key, file: valueLocation.file)
    }
}

/// The style keys the layout pass reads on every component, whatever its declared schema
/// (docs/layout.md): `layout_margins` (insets) and `constraints` (constraint name → the
/// constant that replaces its own, so the device cascade and traits adjust layout).
public enum LayoutStyleKeys {
    public static let names = ["constraints", "layout_margins"]

    /// The parsed value of a layout key, nil for any other key.
    static func parse(_ key: String, _ value: JSONNode, at location: SourceLocation, file: String) -> StyleValueParser.Outcome? {
        switch key {
        case "layout_margins":
            return StyleValueParser.parse(value, as: .insets, key: key, file: file)
        case "constraints":
            guard let o = value.object else {
                return .failure(.error("'constraints' maps constraint names to numbers ({\"poster_top\": 40}), found \(value.kindName)", at: location))
            }
            for m in o.members {
                guard let d = m.value.double else {
                    return .failure(.error("'constraints.\(TextEscape.escaped(m.key))' is the constant of a named constraint: a number, found \(m.value.kindName)",
                                           at: m.value.position.located(in: file)))
                }
                if case .failure(let e) = StyleValueParser.Parser(key: "constraints.\(m.key)", file: file).inRange(d, m.value) { return .failure(e) }
            }
            return .success(.json(value.plain))
        default:
            return nil
        }
    }
}
