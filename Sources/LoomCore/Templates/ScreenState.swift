import OrderedCollections

/// A screen's state (docs/data.md, "State"; Mortar's reactive properties): named scalar values
/// declared with their starting values (`"state": {"favorite": false, "qty": 1}`), read by
/// bindings as `state.NAME`, by rules as attributes `state.NAME`, and changed by state actions
/// (`StateAction`) when a node is tapped. The declared value's type is the name's type.
public struct ScreenState: Sendable, Hashable {
    /// The values, in declaration order.
    public var values: OrderedDictionary<String, JSONValue>
    /// Where each name is declared (for errors about it).
    public var locations: [String: SourceLocation]

    public init(values: OrderedDictionary<String, JSONValue> = [:], locations: [String: SourceLocation] = [:]) {
        self.values = values
        self.locations = locations
    }

    /// A starting value given with a request: text from the command line (`--state qty=3`,
    /// typed as the declared value's type), or a JSON value (a POST body's `"state"`).
    public enum Input: Sendable, Hashable {
        case text(String)
        case value(JSONValue)
    }

    /// The type a value has, as errors name it.
    public static func typeName(_ v: JSONValue) -> String {
        switch v {
        case .bool: return "a boolean"
        case .int: return "an integer"
        case .double: return "a number"
        case .string: return "a string"
        default: return v.kindName
        }
    }

    /// Whether `v` has the type of the declared `d` (an integer is also a number).
    public static func sameType(_ v: JSONValue, as d: JSONValue) -> Bool {
        switch (d, v) {
        case (.bool, .bool), (.int, .int), (.double, .double), (.double, .int), (.string, .string): return true
        default: return false
        }
    }

    /// The `"state"` of a screen document (nil when it declares none). Names are names
    /// (letters, digits, `_`), values JSON scalars (booleans, numbers, strings); anything else
    /// is a located error and left out.
    public static func parse(_ doc: JSONDocument) -> (ScreenState?, Diagnostics) {
        var d = Diagnostics()
        guard let top = doc.root.object, let node = top["state"] else { return (nil, d) }
        guard let o = node.object else {
            d.error("\"state\" maps state names to their starting values (booleans, numbers, strings), found \(node.kindDescription)", at: doc.location(node.position))
            return (nil, d)
        }
        var out = ScreenState()
        for m in o.members {
            guard TemplateExpander.isName(m.key) else {
                d.error("a state name is a name such as qty (letters, digits, _), found '\(TextEscape.escaped(m.key))'", at: doc.location(m.keyPosition))
                continue
            }
            switch m.value.plain {
            case .bool, .int, .double, .string:
                out.values[m.key] = m.value.plain
                out.locations[m.key] = doc.location(m.keyPosition)
            default:
                d.error("state '\(m.key)' starts as a boolean, a number or a string, found \(m.value.kindDescription)", at: doc.location(m.value.position))
            }
        }
        return (out, d)
    }

    /// This state with the request's starting values: each name must be declared (an error
    /// with a did-you-mean otherwise) and have the declared type (text is read as that type).
    /// Errors are located at the declaration of the state (`at`).
    public func with(_ given: [String: Input], at: SourceLocation) -> (ScreenState, Diagnostics) {
        var d = Diagnostics()
        var out = self
        for name in given.keys.sorted() {
            guard let declared = values[name] else {
                let known = Array(values.keys)
                d.error("state '\(TextEscape.escaped(name))' was given, but the screen declares no state of that name\(DidYouMean.hint(name, among: known))" + (known.isEmpty ? "" : " (declared: \(known.joined(separator: ", ")))"), at: at)
                continue
            }
            let loc = locations[name] ?? at
            switch given[name]! {
            case .value(let v):
                guard Self.sameType(v, as: declared) else {
                    d.error("state '\(name)' is \(Self.typeName(declared)) (declared here), given \(Self.typeName(v))", at: loc)
                    continue
                }
                out.values[name] = v
            case .text(let t):
                guard let v = Self.read(t, as: declared) else {
                    d.error("state '\(name)' is \(Self.typeName(declared)) (declared here), given '\(TextEscape.escaped(t))'", at: loc)
                    continue
                }
                out.values[name] = v
            }
        }
        return (out, d)
    }

    /// Text typed as the declared value's type (nil: not of that type).
    static func read(_ t: String, as declared: JSONValue) -> JSONValue? {
        switch declared {
        case .bool: return t == "true" ? .bool(true) : t == "false" ? .bool(false) : nil
        case .int: return Int(t).map { .int($0) }
        case .double: return Double(t).flatMap { $0.isFinite ? .double($0) : nil }
        case .string: return .string(t)
        default: return nil
        }
    }

    /// The values as attributes rules read (`state.qty`).
    public var attributes: OrderedDictionary<String, JSONValue> {
        var out: OrderedDictionary<String, JSONValue> = [:]
        for (k, v) in values { out["state." + k] = v }
        return out
    }

    /// The values as one JSON object (`"state"` in `host navigate --format json`).
    public var json: JSONValue { .object(values) }

    /// `name=value, …` in declaration order (text output).
    public var text: String {
        values.map { "\($0.key)=\(Self.shown($0.value))" }.joined(separator: " ")
    }

    static func shown(_ v: JSONValue) -> String {
        switch v {
        case .string(let s): return "'" + TextEscape.escaped(s) + "'"
        default: return v.serialized(pretty: false)
        }
    }
}

/// An action that changes a screen's state when its node is tapped:
/// `{"set": {"favorite": {"$not": "state.favorite"}, "size": "L"}}`,
/// `{"increment": "qty", "max": 9}`, `{"decrement": "qty", "min": 1}` (optionally `"by": 2`).
/// Parsed and checked against the screen's state when the screen is expanded; kept in the
/// node's `action` as its compact JSON text (`StateAction.prefix` marks it), read back at a tap.
public enum StateAction: Sendable, Hashable {
    case set([(name: String, value: Assigned)])
    case step(name: String, by: JSONValue, limit: JSONValue?)

    /// What `set` gives a name: a value, or the negation of a boolean state.
    public enum Assigned: Sendable, Hashable {
        case value(JSONValue)
        case not(String)
    }

    public static func == (a: StateAction, b: StateAction) -> Bool { a.key == b.key }
    public func hash(into h: inout Hasher) { h.combine(key) }
    var key: String {
        switch self {
        case .set(let pairs): return "set " + pairs.map { "\($0.name)=\($0.value)" }.joined(separator: ",")
        case .step(let n, let by, let limit): return "step \(n) \(by) \(String(describing: limit))"
        }
    }

    /// The keys a state action has: one of these marks an `action` object as one.
    public static let kinds = ["set", "increment", "decrement"]
    static let stepKeys = ["increment", "decrement", "by", "max", "min"]

    /// Whether `n` is written as a state action (an object with `set`, `increment` or `decrement`).
    public static func isStateAction(_ n: JSONNode) -> Bool {
        guard let o = n.object else { return false }
        return o.members.contains { kinds.contains($0.key) }
    }

    /// Parses a state action written at `n` in `file`, checked against `state` (unknown
    /// names, wrong types, limits on the wrong side: located errors; nil then).
    public static func parse(_ n: JSONNode, state: ScreenState?, file: String, diagnostics d: inout Diagnostics) -> StateAction? {
        func at(_ p: SourcePosition) -> SourceLocation { p.located(in: file) }
        guard let o = n.object else { return nil }
        let declared = state?.values ?? [:]
        func known(_ name: String, _ p: SourcePosition) -> JSONValue? {
            if let v = declared[name] { return v }
            let names = Array(declared.keys)
            d.error("unknown state '\(TextEscape.escaped(name))'\(DidYouMean.hint(name, among: names))" + (names.isEmpty ? " (the screen declares no \"state\")" : " (declared: \(names.joined(separator: ", ")))"), at: at(p))
            return nil
        }
        if let s = o["set"] {
            for m in o.members where m.key != "set" {
                d.error("unknown key '\(TextEscape.escaped(m.key))' in a set action (it holds only \"set\")", at: at(m.keyPosition))
                return nil
            }
            guard let so = s.object, !so.members.isEmpty else {
                d.error("\"set\" maps state names to their new values, found \(s.kindDescription)", at: at(s.position))
                return nil
            }
            var pairs: [(name: String, value: Assigned)] = []
            var ok = true
            for m in so.members {
                guard let type = known(m.key, m.keyPosition) else { ok = false; continue }
                if let not = m.value.object?["$not"] {
                    guard m.value.object!.members.count == 1, let path = not.string, path.hasPrefix("state.") else {
                        d.error("{\"$not\": \"state.NAME\"} negates a boolean state, found \(not.kindDescription)", at: at(not.position))
                        ok = false
                        continue
                    }
                    let other = String(path.dropFirst(6))
                    guard let ot = known(other, not.position) else { ok = false; continue }
                    guard case .bool = ot else {
                        d.error("$not negates a boolean state; state '\(other)' is \(ScreenState.typeName(ot))", at: at(not.position))
                        ok = false
                        continue
                    }
                    guard case .bool = type else {
                        d.error("state '\(m.key)' is \(ScreenState.typeName(type)), set to a boolean ($not)", at: at(not.position))
                        ok = false
                        continue
                    }
                    pairs.append((m.key, .not(other)))
                    continue
                }
                let v = m.value.plain
                guard ScreenState.sameType(v, as: type) else {
                    d.error("state '\(m.key)' is \(ScreenState.typeName(type)), set to \(m.value.kindDescription)", at: at(m.value.position))
                    ok = false
                    continue
                }
                pairs.append((m.key, .value(v)))
            }
            return ok ? .set(pairs) : nil
        }
        let up = o["increment"] != nil
        for m in o.members where !stepKeys.contains(m.key) {
            d.error("unknown key '\(TextEscape.escaped(m.key))' in an \(up ? "increment" : "decrement") action\(DidYouMean.hint(m.key, among: stepKeys))", at: at(m.keyPosition))
            return nil
        }
        if o["increment"] != nil, o["decrement"] != nil {
            d.error("an action either increments or decrements; keep one", at: at(n.position))
            return nil
        }
        let target = (o["increment"] ?? o["decrement"])!
        guard let name = target.string else {
            d.error("\"\(up ? "increment" : "decrement")\" names a number state, found \(target.kindDescription)", at: at(target.position))
            return nil
        }
        guard let type = known(name, target.position) else { return nil }
        guard ScreenState.sameType(.int(0), as: type) else {
            d.error("state '\(name)' is \(ScreenState.typeName(type)): only a number is incremented or decremented", at: at(target.position))
            return nil
        }
        if let wrong = o[up ? "min" : "max"] {
            d.error("an \(up ? "increment" : "decrement") stops at a \"\(up ? "max" : "min")\", not a \"\(up ? "min" : "max")\"", at: at(wrong.position))
            return nil
        }
        func number(_ k: String) -> JSONValue?? {
            guard let v = o[k] else { return .some(nil) }
            guard ScreenState.sameType(v.plain, as: type) else {
                d.error("\"\(k)\" of state '\(name)' is \(ScreenState.typeName(type)), found \(v.kindDescription)", at: at(v.position))
                return nil
            }
            return .some(v.plain)
        }
        guard let by = number("by"), let limit = number(up ? "max" : "min") else { return nil }
        var step = by ?? .int(1)
        if !up {
            switch step {
            case .int(let i): step = i == Int.min ? .double(-Double(i)) : .int(-i)
            case .double(let x): step = .double(-x)
            default: break
            }
        }
        return .step(name: name, by: step, limit: limit)
    }

    /// The prefix of a node's `action` text that holds a state action (its compact JSON).
    public static let prefix = "{"

    /// The node's `action` text for this action written as `n` (its compact JSON).
    public static func actionText(_ n: JSONNode) -> String { n.plain.serialized(pretty: false) }

    /// The state action in a node's `action` text (nil: a navigation action).
    public static func from(actionText text: String, state: ScreenState) -> StateAction? {
        guard text.hasPrefix(prefix), let doc = try? JSONReader.parse(Array(text.utf8), file: "action") else { return nil }
        var d = Diagnostics()
        return parse(doc.root, state: state, file: "action", diagnostics: &d)
    }

    /// `state` after this action. A number stops at its limit; integers that would overflow stay.
    public func apply(to state: ScreenState) -> ScreenState {
        var out = state
        switch self {
        case .set(let pairs):
            for (name, value) in pairs {
                switch value {
                case .value(let v): out.values[name] = v
                case .not(let other):
                    if case .bool(let b)? = state.values[other] { out.values[name] = .bool(!b) }
                }
            }
        case .step(let name, let by, let limit):
            guard let current = state.values[name] else { return out }
            var next: JSONValue
            switch (current, by) {
            case (.int(let a), .int(let b)):
                let (r, over) = a.addingReportingOverflow(b)
                next = over ? current : .int(r)
            default:
                // A sum past the largest double stays where it was (JSON has no infinity).
                let sum = (current.double ?? 0) + (by.double ?? 0)
                next = sum.isFinite ? .double(sum) : current
            }
            if let limit, let n = next.double, let l = limit.double {
                let up = (by.double ?? 0) >= 0
                if up ? n > l : n < l { next = (current.double.map { up ? $0 >= l : $0 <= l } ?? false) ? current : limit }
            }
            out.values[name] = next
        }
        return out
    }
}

