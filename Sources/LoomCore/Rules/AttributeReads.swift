/// Which user attributes a rule reads, as declared beside it (`host.rule` option `reads`):
/// so a trace can say that an attribute the rule read was absent (`now is missing`), and
/// `host run` can warn when the chosen user lacks one.
///
/// - `reads = "args"`: the keys of the arguments object (`equals {"role": "staff"}` reads `role`);
/// - `reads = { "now", … }`: those attributes;
/// - a list entry `{ arg = "stickiness", default = "id" }`: the attribute the argument names
///   (`default` when the reference does not give it).
public struct AttributeReads: Sendable, Hashable {
    public enum Entry: Sendable, Hashable {
        case attribute(String)
        case argumentKeys
        case namedBy(argument: String, default: String?)
    }

    public var entries: [Entry]

    public init(_ entries: [Entry]) { self.entries = entries }

    /// Reads the `reads` option (JSON); a malformed one is an error naming the option.
    public static func parse(_ v: JSONValue) -> Result<AttributeReads, SchemaError> {
        let shape = "options.reads is \"args\" (the argument keys) or a list of attribute names and { arg = NAME, default = ATTRIBUTE? }"
        switch v {
        case .string("args"):
            return .success(AttributeReads([.argumentKeys]))
        case .object(let o) where o.isEmpty:
            return .success(AttributeReads([]))
        case .array(let list):
            var out: [Entry] = []
            for (i, x) in list.enumerated() {
                switch x {
                case .string(let s) where !s.isEmpty:
                    out.append(.attribute(s))
                case .object(let o):
                    guard case .string(let arg)? = o["arg"], !arg.isEmpty else {
                        return .failure(SchemaError("options.reads[\(i + 1)]: a table entry names the argument that names the attribute: { arg = \"stickiness\" }"))
                    }
                    for k in o.keys where k != "arg" && k != "default" {
                        return .failure(SchemaError("options.reads[\(i + 1)]: unknown key '\(k)'\(DidYouMean.hint(k, among: ["arg", "default"]))"))
                    }
                    var def: String?
                    if let d = o["default"] {
                        guard case .string(let s) = d else { return .failure(SchemaError("options.reads[\(i + 1)].default is an attribute name (a string)")) }
                        def = s
                    }
                    out.append(.namedBy(argument: arg, default: def))
                default:
                    return .failure(SchemaError(shape))
                }
            }
            return .success(AttributeReads(out))
        default:
            return .failure(SchemaError(shape))
        }
    }

    /// The attributes a reference with these arguments reads, in declaration order.
    public func attributes(args: JSONNode?) -> [String] {
        var out: [String] = []
        for e in entries {
            switch e {
            case .attribute(let a): out.append(a)
            case .argumentKeys:
                if let o = args?.object { out += o.members.map(\.key) }
            case .namedBy(let arg, let def):
                if let name = args?.object?.members.first(where: { $0.key == arg })?.value.string {
                    out.append(name)
                } else if let def {
                    out.append(def)
                }
            }
        }
        return out
    }

    /// The JSON form (`host plugins --format json`, API listings).
    public var json: JSONValue {
        if entries == [.argumentKeys] { return .string("args") }
        return .array(entries.map { e in
            switch e {
            case .attribute(let a): return .string(a)
            case .argumentKeys: return .string("args")
            case .namedBy(let arg, let def):
                return .object(def.map { ["arg": .string(arg), "default": .string($0)] } ?? ["arg": .string(arg)])
            }
        })
    }
}

/// A rule evaluator that knows which attributes it reads (a plugin rule declaring `reads`).
public protocol AttributeReading: AnyObject {
    var reads: AttributeReads? { get }
}

extension RuleRegistration {
    /// The attributes a reference with `args` reads, when the rule declares them.
    public func attributesRead(args: JSONNode?) -> [String]? {
        (evaluator as? AttributeReading)?.reads?.attributes(args: args)
    }
}
