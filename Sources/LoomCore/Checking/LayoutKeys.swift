/// A collection's declared `layout` schema (`options.layout` of `host.collection`) as the field
/// types the layout check reads: number, integer, boolean, string and nested objects.
enum LayoutKeys {
    static func fieldTypes(_ schema: ArgumentSchema) -> [String: MetaSchema.FieldType] {
        guard case .object(let fields) = schema.kind else { return [:] }
        var out: [String: MetaSchema.FieldType] = [:]
        for (k, spec) in fields { out[k] = fieldType(spec) }
        return out
    }

    static func fieldType(_ s: ArgumentSchema) -> MetaSchema.FieldType {
        if let values = s.values, values.allSatisfy({ $0.string != nil }) { return .enumeration(values.compactMap(\.string)) }
        switch s.kind {
        case .string, .version, .datetime, .date, .clock, .timezone, .decimal: return .string
        case .number: return .number
        case .integer: return .integer
        case .boolean: return .boolean
        case .list: return .array
        case .map: return .object
        case .object(let fields):
            var nested: [(String, MetaSchema.FieldType)] = []
            for (k, spec) in fields { nested.append((k, fieldType(spec))) }
            return .nested(MetaSchema(.init(uniqueKeysWithValues: nested)))
        case .any, .oneOf: return .any
        }
    }
}
