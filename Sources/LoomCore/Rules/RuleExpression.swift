/// A visibility rule as written in a screen: a registered rule by name (with JSON arguments or
/// none), or AND / OR / NOT of rules.
public indirect enum RuleExpression: Sendable, Hashable {
    case rule(name: String, args: JSONNode?, location: SourceLocation)
    case and([RuleExpression], location: SourceLocation)
    case or([RuleExpression], location: SourceLocation)
    case not(RuleExpression, location: SourceLocation)

    public var location: SourceLocation {
        switch self {
        case .rule(_, _, let l), .and(_, let l), .or(_, let l), .not(_, let l): return l
        }
    }

    /// A compact text form: `AND(is_gold, NOT(churn))`, `at_least{"app_version":"5.2.0"}`.
    public var text: String {
        switch self {
        case .rule(let name, let args, _):
            guard let args else { return name }
            return name + args.plain.serialized(pretty: false)
        case .and(let rs, _): return "AND(" + rs.map(\.text).joined(separator: ", ") + ")"
        case .or(let rs, _): return "OR(" + rs.map(\.text).joined(separator: ", ") + ")"
        case .not(let r, _): return "NOT(" + r.text + ")"
        }
    }

    /// Every named rule reference in the expression.
    public var references: [(name: String, args: JSONNode?, location: SourceLocation)] {
        switch self {
        case .rule(let n, let a, let l): return [(n, a, l)]
        case .and(let rs, _), .or(let rs, _): return rs.flatMap(\.references)
        case .not(let r, _): return r.references
        }
    }

    /// Parses a rule expression; malformed ones are reported and yield nil (fail closed).
    public static func parse(_ node: JSONNode, file: String, diagnostics: inout Diagnostics) -> RuleExpression? {
        let loc = node.position.located(in: file)
        switch node.kind {
        case .string(let name):
            if name.trimmingWhitespace.isEmpty {
                diagnostics.error("empty rule name", at: loc)
                return nil
            }
            return .rule(name: name, args: nil, location: loc)
        case .object(let obj):
            guard obj.members.count == 1, let m = obj.members.first else {
                diagnostics.error(
                    obj.members.isEmpty
                        ? "empty rule object: expected {\"AND\": [...]}, {\"OR\": [...]}, {\"NOT\": rule} or {\"rule_name\": arguments}"
                        : "a rule object has exactly one key (AND, OR, NOT or a rule name), found \(obj.members.count): \(obj.keys.joined(separator: ", "))",
                    at: loc)
                return nil
            }
            let key = m.key
            let keyLoc = m.keyPosition.located(in: file)
            switch key {
            case "AND", "and", "OR", "or":
                guard case .array(let list) = m.value.kind else {
                    diagnostics.error("'\(key)' takes a list of rules, found \(m.value.kindDescription)", at: m.value.position.located(in: file))
                    return nil
                }
                if list.isEmpty {
                    diagnostics.error("'\(key)' needs at least one rule", at: m.value.position.located(in: file))
                    return nil
                }
                var parts: [RuleExpression] = []
                var ok = true
                for sub in list {
                    if let r = parse(sub, file: file, diagnostics: &diagnostics) { parts.append(r) } else { ok = false }
                }
                guard ok else { return nil }
                return key.uppercased() == "AND" ? .and(parts, location: keyLoc) : .or(parts, location: keyLoc)
            case "NOT", "not":
                if case .array(let list) = m.value.kind {
                    guard list.count == 1 else {
                        diagnostics.error("'NOT' takes one rule, found a list of \(list.count)", at: m.value.position.located(in: file))
                        return nil
                    }
                    return parse(list[0], file: file, diagnostics: &diagnostics).map { .not($0, location: keyLoc) }
                }
                return parse(m.value, file: file, diagnostics: &diagnostics).map { .not($0, location: keyLoc) }
            default:
                if key.trimmingWhitespace.isEmpty {
                    diagnostics.error("empty rule name", at: keyLoc)
                    return nil
                }
                return .rule(name: key, args: m.value, location: keyLoc)
            }
        default:
            diagnostics.error("a rule is a name or an object ({\"AND\": [...]}, {\"OR\": [...]}, {\"NOT\": rule}, {\"name\": arguments}), found \(node.kindDescription)", at: loc)
            return nil
        }
    }
}

extension String {
    var trimmingWhitespace: String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}

extension JSONNode {
    /// "a string", "an object", ... for messages.
    public var kindDescription: String {
        switch kind {
        case .null: return "null"
        case .bool(let b): return "the boolean \(b)"
        case .int(let i): return "the number \(i)"
        case .double(let d): return "the number \(d)"
        case .string(let s): return "the string \"\(s.count > 40 ? String(s.prefix(40)) + "…" : s)\""
        case .array: return "a list"
        case .object: return "an object"
        }
    }
}
