import LoomCore
import OrderedCollections

/// What a flow answers to a step (Weavy's stitch).
public enum Contribution: Sendable, Hashable, CustomStringConvertible {
    /// Push a screen on the current flow's stack.
    case push(String, params: [String: String])
    /// Present a screen modally.
    case present(String, params: [String: String])
    /// Replace the top screen.
    case replace(String, params: [String: String])
    /// Switch the current (tabs) flow to a tab showing this screen.
    case tab(String, params: [String: String])
    /// Enter a child flow at its start screen, then navigate `step` in it if given.
    case flow(String, step: Step?)
    /// Forward a step to the flow that entered this one.
    case parent(Step)
    /// End the current flow; the step, if any, is then navigated in the parent flow.
    case finish(step: Step?)
    /// Nothing happens.
    case none

    public var kind: ContributionKind {
        switch self {
        case .push: return .push
        case .present: return .present
        case .replace: return .replace
        case .tab: return .tab
        case .flow: return .flow
        case .parent: return .parent
        case .finish: return .finish
        case .none: return .none
        }
    }

    /// The screen shown by push / present / replace / tab.
    public var screen: String? {
        switch self {
        case .push(let s, _), .present(let s, _), .replace(let s, _), .tab(let s, _): return s
        default: return nil
        }
    }

    public var params: [String: String] {
        switch self {
        case .push(_, let p), .present(_, let p), .replace(_, let p), .tab(_, let p): return p
        default: return [:]
        }
    }

    public var description: String {
        func showParams(_ p: [String: String]) -> String {
            p.isEmpty ? "" : " {" + p.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ") + "}"
        }
        switch self {
        case .push(let s, let p), .present(let s, let p), .replace(let s, let p), .tab(let s, let p):
            return "\(kind.rawValue) \(s)\(showParams(p))"
        case .flow(let f, let step): return "flow \(f)" + (step.map { " with \($0)" } ?? "")
        case .parent(let step): return "parent \(step)"
        case .finish(let step): return "finish" + (step.map { " with \($0)" } ?? "")
        case .none: return "none"
        }
    }
}

/// The kinds of contribution; also an edge's presentation in the navigation graph.
public enum ContributionKind: String, Sendable, Hashable, CaseIterable, Comparable {
    case push, present, replace, tab, flow, parent, finish, none

    public static func < (a: ContributionKind, b: ContributionKind) -> Bool {
        a.order < b.order
    }

    private var order: Int { ContributionKind.allCases.firstIndex(of: self)! }
}

/// How a flow presents its screens (Weavy's warp kinds).
public enum Presentation: String, Sendable, Hashable, CaseIterable {
    case stack, tabs, modal

    /// Parses `stack` / `tabs` / `modal`, with a did-you-mean for near misses.
    public static func parse(_ text: String, at location: SourceLocation? = nil) -> Result<Presentation, Diagnostic> {
        if let p = Presentation(rawValue: text) { return .success(p) }
        let names = allCases.map(\.rawValue)
        return .failure(.error(
            "unknown presentation '\(text)'; expected one of \(names.joined(separator: ", "))"
                + DidYouMean.hint(text, among: names), at: location))
    }
}

// MARK: - Plain values (the Lua bridge)

extension Step {
    /// `{"name": …, "param": …}` (param absent when nil): the table a Lua `navigate` receives.
    public var json: JSONValue {
        if let param { return ["name": .string(name), "param": .string(param)] }
        return ["name": .string(name)]
    }

    /// A step from `"name:param"` or `{"name": …, "param": …}` (param a string or number).
    public static func decode(_ value: JSONValue) -> Result<Step, Diagnostic> {
        switch value {
        case .string(let s):
            return parse(s)
        case .object(let o):
            guard let name = o["name"]?.string, let step = Step(action: name), step.param == nil else {
                return .failure(.error("a step needs a non-empty \"name\" string without ':'"))
            }
            switch o["param"] {
            case nil, .null?: return .success(step)
            case .string(let p)?: return .success(Step(step.name, param: p.isEmpty ? nil : p))
            case .int(let i)?: return .success(Step(step.name, param: String(i)))
            case let other?:
                if let i = other.int { return .success(Step(step.name, param: String(i))) }
                return .failure(.error("a step's \"param\" must be a string or an integer, found \(other.kindName)"))
            }
        default:
            return .failure(.error("a step must be a string such as \"movie:42\" or {name = …, param = …}, found \(value.kindName)"))
        }
    }
}

extension Contribution {
    /// The same shape as a flows.json contribution, without templates:
    /// `{"push": "product", "params": {"id": "42"}}`, `{"flow": "members", "step": "intro"}`,
    /// `{"parent": "movie:42"}`, `{"finish": true}` / `{"finish": "paid"}`, `{"none": true}`.
    /// Steps may also be `{"name", "param"}` objects.
    public var json: JSONValue {
        func params(_ p: [String: String]) -> JSONValue {
            .object(OrderedDictionary(uniqueKeysWithValues: p.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) }))
        }
        switch self {
        case .push(let s, let p), .present(let s, let p), .replace(let s, let p), .tab(let s, let p):
            var o: OrderedDictionary<String, JSONValue> = [kind.rawValue: .string(s)]
            if !p.isEmpty { o["params"] = params(p) }
            return .object(o)
        case .flow(let f, let step):
            var o: OrderedDictionary<String, JSONValue> = ["flow": .string(f)]
            if let step { o["step"] = .string(step.description) }
            return .object(o)
        case .parent(let step): return ["parent": .string(step.description)]
        case .finish(let step): return ["finish": step.map { .string($0.description) } ?? .bool(true)]
        case .none: return ["none": true]
        }
    }

    /// What a Lua `navigate` returned, converted to a plain value: one contribution object, a
    /// list of them, or nil / an empty list for nothing. Errors say what is wrong (the caller
    /// adds the plugin and location).
    public static func decode(_ value: JSONValue) -> Result<[Contribution], Diagnostic> {
        switch value {
        case .null: return .success([])
        case .array(let items):
            var out: [Contribution] = []
            for (i, item) in items.enumerated() {
                switch decodeOne(item) {
                case .success(let c): out.append(c)
                case .failure(let d): return .failure(Diagnostic(d.severity, "contribution \(i + 1): \(d.message)", at: d.location))
                }
            }
            return .success(out)
        default:
            return decodeOne(value).map { [$0] }
        }
    }

    static func decodeOne(_ value: JSONValue) -> Result<Contribution, Diagnostic> {
        let kinds = ContributionKind.allCases.map(\.rawValue)
        guard let o = value.object else {
            return .failure(.error("a contribution must be a table such as nav.push(\"screen\"), found \(value.kindName)"))
        }
        let found = o.keys.filter { kinds.contains($0) }
        guard found.count == 1, let key = found.first, let kind = ContributionKind(rawValue: key) else {
            if found.isEmpty {
                let unknown = o.keys.first { $0 != "params" && $0 != "step" } ?? ""
                return .failure(.error("a contribution needs one of \(kinds.joined(separator: ", "))"
                    + (unknown.isEmpty ? "" : "; found '\(unknown)'" + DidYouMean.hint(unknown, among: kinds))))
            }
            return .failure(.error("a contribution has several kinds (\(found.joined(separator: ", "))); return a list for several"))
        }
        for k in o.keys where k != key && k != "params" && k != "step" {
            return .failure(.error("unknown key '\(k)' in a \(key) contribution" + DidYouMean.hint(k, among: ["params", "step"])))
        }
        if o["params"] != nil, ![.push, .present, .replace, .tab].contains(kind) {
            return .failure(.error("params apply only to push, present, replace and tab, not to \(key)"))
        }
        if o["step"] != nil, kind != .flow {
            return .failure(.error("step applies only to flow, not to \(key)"))
        }
        let v = o[key]!
        func name(_ what: String) -> Result<String, Diagnostic> {
            if let s = v.string, !Step.trim(s[...]).isEmpty { return .success(s) }
            return .failure(.error("\(key) needs a \(what) name (a non-empty string), found \(v.kindName)"))
        }
        func step(_ value: JSONValue?) -> Result<Step?, Diagnostic> {
            guard let value, !value.isNull else { return .success(nil) }
            if value.bool == true { return .success(nil) }
            return Step.decode(value).map { $0 }
        }
        switch kind {
        case .push, .present, .replace, .tab:
            return name("screen").flatMap { screen in
                var params: [String: String] = [:]
                if let p = o["params"], !p.isNull {
                    guard let table = p.object else {
                        return .failure(.error("params of \(key) must be a table of strings, found \(p.kindName)"))
                    }
                    for (k, value) in table {
                        switch value {
                        case .string(let s): params[k] = s
                        case .bool(let b): params[k] = String(b)
                        case .null: continue
                        default:
                            if let i = value.int { params[k] = String(i) } else if let d = value.double { params[k] = JSONValue.numberText(d) } else {
                                return .failure(.error("param '\(k)' of \(key) must be a string or a number, found \(value.kindName)"))
                            }
                        }
                    }
                }
                switch kind {
                case .present: return .success(.present(screen, params: params))
                case .replace: return .success(.replace(screen, params: params))
                case .tab: return .success(.tab(screen, params: params))
                default: return .success(.push(screen, params: params))
                }
            }
        case .flow:
            return name("flow").flatMap { flow in step(o["step"]).map { .flow(flow, step: $0) } }
        case .parent:
            return step(v).flatMap { s in
                guard let s else { return .failure(.error("parent needs the step to forward")) }
                return .success(.parent(s))
            }
        case .finish:
            if v.bool == false { return .failure(.error("finish must be true or a step, found false")) }
            return step(v).map { .finish(step: $0) }
        case .none:
            return .success(.none)
        }
    }
}
