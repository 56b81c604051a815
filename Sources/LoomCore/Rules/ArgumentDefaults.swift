/// Declared defaults filled into arguments before a rule sees them: a field the reference left
/// out that declares `default` arrives with that value (nested objects too), so a rule never
/// repeats its own defaults (`args.stickiness or "id"`).
extension ArgumentSchema {
    /// Whether any field (at any depth of nested objects) declares a default.
    public var hasDefaults: Bool {
        guard case .object(let fields) = kind else { return false }
        return fields.values.contains { $0.defaultValue != nil || $0.hasDefaults }
    }

    /// `value` with the declared defaults of absent fields added (in declaration order, after
    /// the fields given); anything that is not an object of this schema is returned as it is.
    public func withDefaults(_ value: JSONValue) -> JSONValue {
        guard case .object(let fields) = kind, case .object(var o) = value else { return value }
        for (name, spec) in fields {
            if let present = o[name] {
                if spec.hasDefaults { o[name] = spec.withDefaults(present) }
            } else if let d = spec.defaultValue {
                o[name] = d
            } else if spec.hasDefaults, case .object = spec.kind {
                let filled = spec.withDefaults(.object([:]))
                if case .object(let f) = filled, !f.isEmpty { o[name] = filled }
            }
        }
        return .object(o)
    }

    /// The arguments a reference without any gets: the defaults, or nil when none are declared.
    public var defaultsAlone: JSONValue? {
        guard hasDefaults else { return nil }
        return withDefaults(.object([:]))
    }
}
