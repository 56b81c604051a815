import OrderedCollections

/// One thing wrong with an argument value: the message (without the rule's name) and where.
public struct ArgumentProblem: Sendable, Hashable {
    public var message: String
    public var position: SourcePosition
    public init(_ message: String, at position: SourcePosition) {
        self.message = message
        self.position = position
    }
}

/// Checks values against an `ArgumentSchema`, reporting every problem at once, each at its
/// JSON position.
public enum ArgumentValidator {
    public enum PathStep: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    /// Every problem of `value` (nil: the arguments are absent) against `schema`; `at` locates a
    /// missing value. `noun` names the values in messages ("argument", "layout key").
    public static func validate(_ value: JSONNode?, against schema: ArgumentSchema, at position: SourcePosition, noun: String = "argument") -> [ArgumentProblem] {
        var problems: [ArgumentProblem] = []
        guard let value, !value.isNull else {
            if schema.required {
                problems.append(ArgumentProblem("needs arguments: \(expectation(schema))\(example(schema))", at: position))
            }
            return problems
        }
        check(value, against: schema, path: [], noun: noun, into: &problems)
        return problems
    }

    static func example(_ s: ArgumentSchema) -> String {
        s.description.map { " (\($0))" } ?? ""
    }

    static func subject(_ path: [PathStep], noun: String) -> String {
        guard let first = path.first else { return "the \(noun)s" }
        var out: String
        switch first {
        case .key(let k): out = "'\(k)'"
        case .index(let i): out = "[\(i)]"
        }
        for step in path.dropFirst() {
            switch step {
            case .key(let k): out += ".\(k)"
            case .index(let i): out += "[\(i)]"
            }
        }
        return out
    }

    static func check(_ v: JSONNode, against s: ArgumentSchema, path: [PathStep], noun: String = "argument", into problems: inout [ArgumentProblem]) {
        func fail(_ why: String = "") {
            var m = "\(subject(path, noun: noun)) must be \(expectation(s)), found \(show(v))\(why)"
            if let hint = s.hint { m += " (\(hint))" }
            problems.append(ArgumentProblem(m, at: v.position))
        }
        guard matches(v, s.kind) else {
            // Wrong type (or format): say why when the value almost fits.
            fail(formatReason(v, s.kind).map { " (\($0))" } ?? "")
            return
        }
        if let values = s.values, !values.contains(where: { sameValue($0, v.plain) }) {
            let listed = values.map { $0.serialized(pretty: false) }
            var m = "\(subject(path, noun: noun)) must be one of \(listed.joined(separator: ", ")), found \(show(v))"
            if case .string(let str) = v.kind { m += DidYouMean.hint(str, among: values.compactMap(\.string)) }
            problems.append(ArgumentProblem(m, at: v.position))
            return
        }
        if !inBounds(v, s) {
            if isEmptyContainer(v) {
                let who = path.isEmpty ? "" : "\(subject(path, noun: noun)) "
                problems.append(ArgumentProblem("\(who)needs at least one entry\(example(s))", at: v.position))
            } else {
                fail()
            }
            return
        }
        switch (s.kind, v.kind) {
        case (.list(let element), .array(let a)):
            for (i, e) in a.enumerated() { check(e, against: element, path: path + [.index(i)], noun: noun, into: &problems) }
        case (.map(let element), .object(let o)):
            for m in o.members {
                if m.key.isEmpty {
                    problems.append(ArgumentProblem("\(path.isEmpty ? "" : subject(path, noun: noun) + ": ")names must not be empty", at: m.keyPosition))
                    continue
                }
                check(m.value, against: element, path: path + [.key(m.key)], noun: noun, into: &problems)
            }
        case (.object(let fields), .object(let o)):
            checkFields(o, fields, path: path, noun: noun, at: v.position, into: &problems)
        case (.oneOf(let kinds), _):
            // The first kind that matches decides how the inside is checked.
            if let k = kinds.first(where: { matches(v, $0) }), k != s.kind {
                var inner = s
                inner.kind = k
                inner.values = nil
                check(v, against: inner, path: path, noun: noun, into: &problems)
            }
        default:
            break
        }
    }

    static func checkFields(
        _ o: JSONObject, _ fields: OrderedDictionary<String, ArgumentSchema>, path: [PathStep], noun: String,
        at position: SourcePosition, into problems: inout [ArgumentProblem]
    ) {
        let names = Array(fields.keys)
        for m in o.members {
            if let spec = fields[m.key] {
                check(m.value, against: spec, path: path + [.key(m.key)], noun: noun, into: &problems)
                continue
            }
            let prefix = path.isEmpty ? "" : "\(subject(path, noun: noun)): "
            var msg = "\(prefix)unknown \(noun) '\(m.key)'; expected \(names.joined(separator: ", "))"
            let lower = m.key.lowercased()
            if let named = fields.first(where: { $0.value.suggestFor.contains { $0.lowercased() == lower } }) {
                msg += "; did you mean '\(named.key)'?"
            } else {
                msg += DidYouMean.hint(m.key, among: names)
            }
            problems.append(ArgumentProblem(msg, at: m.keyPosition))
        }
        for (name, spec) in fields where spec.required && (o[name] == nil || o[name]!.isNull) {
            let full = subject(path + [.key(name)], noun: noun)
            problems.append(ArgumentProblem("\(full) is required: \(expectation(spec))\(example(spec))", at: position))
        }
    }

    /// Whether `v` is of kind `k` (bounds and `values` aside).
    static func matches(_ v: JSONNode, _ k: ArgumentSchema.Kind) -> Bool {
        switch (k, v.kind) {
        case (.any, _): return true
        case (.string, .string), (.boolean, .bool): return true
        case (.number, .int), (.number, .double): return true
        case (.integer, .int): return true
        case (.integer, .double(let d)) where d == d.rounded() && abs(d) < 9e15: return true
        case (.version, .string(let s)): return SemanticVersion.problem(s) == nil
        case (.datetime, .string(let s)): return ISODateTime.problem(s) == nil
        case (.decimal, .string(let s)): return DecimalString.isValid(s)
        case (.date, .string(let s)): return CalendarDate.problem(s) == nil
        case (.clock, .string(let s)): return ClockTime.problem(s) == nil
        case (.timezone, .string(let s)): return ZoneDatabase.problem(s) == nil
        case (.list, .array), (.map, .object), (.object, .object): return true
        case (.oneOf(let kinds), _): return kinds.contains { matches(v, $0) }
        default: return false
        }
    }

    /// Why a string is not a version / date-time, when that is what was expected.
    static func formatReason(_ v: JSONNode, _ k: ArgumentSchema.Kind) -> String? {
        guard case .string(let s) = v.kind else { return nil }
        switch k {
        case .version: return SemanticVersion.problem(s)
        case .datetime: return ISODateTime.problem(s)
        case .date: return CalendarDate.problem(s)
        case .clock: return ClockTime.problem(s)
        case .timezone: return ZoneDatabase.problem(s)
        case .oneOf(let kinds):
            if kinds.contains(.version), s.first.map({ $0.isNumber || $0 == "v" || $0 == "V" }) == true {
                return SemanticVersion.problem(s)
            }
            if kinds.contains(.datetime), s.first?.isNumber == true { return ISODateTime.problem(s) }
            if kinds.contains(.timezone) { return ZoneDatabase.problem(s) }
            return nil
        default: return nil
        }
    }

    static func inBounds(_ v: JSONNode, _ s: ArgumentSchema) -> Bool {
        guard s.min != nil || s.max != nil else { return true }
        let measure: Double
        switch v.kind {
        case .int(let i): measure = Double(i)
        case .double(let d):
            guard !d.isNaN else { return false }
            measure = d
        case .string(let str): measure = Double(str.count)
        case .array(let a): measure = Double(a.count)
        case .object(let o): measure = Double(o.members.count)
        default: return true
        }
        if let lo = s.min, measure < lo { return false }
        if let hi = s.max, measure > hi { return false }
        return true
    }

    static func isEmptyContainer(_ v: JSONNode) -> Bool {
        switch v.kind {
        case .array(let a): return a.isEmpty
        case .object(let o): return o.members.isEmpty
        default: return false
        }
    }

    static func sameValue(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.int(let x), .double(let y)), (.double(let y), .int(let x)): return Double(x) == y
        default: return a == b
        }
    }

    // MARK: Describing

    static func num(_ d: Double) -> String { JSONValue.numberText(d) }

    /// "a number from 0 to 100", "a non-empty string", "an object of names to a list of strings"…
    public static func expectation(_ s: ArgumentSchema) -> String {
        if let values = s.values { return "one of " + values.map { $0.serialized(pretty: false) }.joined(separator: ", ") }
        let base = kindDescription(s.kind)
        switch s.kind {
        case .number, .integer:
            switch (s.min, s.max) {
            case let (lo?, hi?): return "\(base) from \(num(lo)) to \(num(hi))"
            case let (lo?, nil): return "\(base) of at least \(num(lo))"
            case let (nil, hi?): return "\(base) of at most \(num(hi))"
            default: return base
            }
        case .string, .list, .map:
            let unit: String
            switch s.kind {
            case .string: unit = "characters"
            case .list: unit = "elements"
            default: unit = "entries"
            }
            switch (s.min, s.max) {
            case (1?, nil): return "a non-empty " + base.drop { $0 != " " }.dropFirst()
            case let (lo?, hi?): return "\(base) of \(num(lo)) to \(num(hi)) \(unit)"
            case let (lo?, nil): return "\(base) of at least \(num(lo)) \(unit)"
            case let (nil, hi?): return "\(base) of at most \(num(hi)) \(unit)"
            default: return base
            }
        default:
            return base
        }
    }

    static func kindDescription(_ k: ArgumentSchema.Kind) -> String {
        switch k {
        case .string: return "a string"
        case .number: return "a number"
        case .integer: return "an integer"
        case .boolean: return "a boolean"
        case .version: return "a version string like \"5.2.0\" (SemVer 2.0)"
        case .datetime: return "an ISO-8601 date or date-time string like \"2025-01-01T00:00:00Z\""
        case .decimal: return "a decimal number written as a string"
        case .date: return "a date \"YYYY-MM-DD\""
        case .clock: return "a time of day \"hh:mm\" (00:00 to 23:59)"
        case .timezone: return "an IANA time zone name like \"Europe/Oslo\""
        case .any: return "any value"
        case .list(let e): return "a list of \(plural(e))"
        case .map(let e): return "an object of names to \(plural(e))"
        case .object(let fields): return fields.isEmpty ? "an object" : "an object with " + fields.keys.joined(separator: ", ")
        case .oneOf(let kinds):
            let parts = kinds.map(kindDescription)
            return parts.count <= 1 ? (parts.first ?? "") : parts.dropLast().joined(separator: ", ") + " or " + parts.last!
        }
    }

    /// "strings", "numbers from 0 to 1"…: the expectation of an element, for "a list of …".
    static func plural(_ s: ArgumentSchema) -> String {
        let e = expectation(s)
        return "values, each \(e)"
    }

    /// A value for messages: compact JSON, cut at 80 characters.
    public static func show(_ v: JSONNode) -> String {
        let text = v.plain.serialized(pretty: false)
        return text.count > 80 ? String(text.prefix(77)) + "..." : text
    }
}
